"""The lake against a database file: `hotdb top --all-models` as a whole process on a lake
of Delta tables and on a database file holding the same runs, paired run by run.

Both receive the same ingests, one at a time, through the API: `--models` models, each
with the bundled VGG-16 build's IR and tasks and `--runs` distinct profiles (the
example's table under a comment of its own). The lake is measured as ingests leave
it (one commit per ingest: many small files) and after `lake compact`. Each pair runs
the two processes in a random order; the figure is the median of the per-pair ratios.
A reader remembers what the versions it read hold (hotdb/store/lake_snapshot.py) and
keeps their rows as a database file (hotdb/store/lake_snapshot.py): the pairs read an
unchanged lake, and "first read" pairs read it with nothing remembered and no copy, as
the first read after a commit does (every table changed: the worst case), making the copy.

    python bench/lake_top.py [--models 8] [--runs 6] [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hotdb.api import Hotdb
from hotdb.examples import example_files

HOTDB = [sys.executable, "-m", "hotdb"] if shutil.which("hotdb") is None else [shutil.which("hotdb")]


def profile(path: Path, label: str) -> Path:
    """The example's debug table with a comment naming it: a distinct file, a run of its own."""
    table = next(f for f in example_files("vgg16") if f.name.endswith("debug_table.txt"))
    path.write_text(Path(table).read_text() + f"\n# {label}\n")
    return path


def build(tmp: Path, models: int, runs: int) -> tuple[Path, Path, float, float]:
    ir = [f for f in example_files("vgg16") if not f.name.endswith("debug_table.txt")]
    db, lake = Hotdb(tmp / "db.duckdb"), Hotdb(lake=tmp / "lake")
    db_s = lake_s = 0.0
    for m in range(models):
        jobs = [(ir, None)] + [([profile(tmp / f"m{m}-r{r}.txt", f"m{m}-r{r}")], None) for r in range(runs)]
        for paths, _ in jobs:
            start = time.perf_counter()
            db.ingest(paths, model=f"model-{m}")
            db_s += time.perf_counter() - start
            start = time.perf_counter()
            lake.ingest(paths, model=f"model-{m}")
            lake_s += time.perf_counter() - start
    return tmp / "db.duckdb", tmp / "lake", db_s, lake_s


def wall(command: list[str], forget: Path | None = None) -> float:
    """A whole process's seconds; with `forget` (a cache folder), what lake readers
    remember is removed first."""
    for remembered in [*forget.glob("lake-*.json"), *forget.glob("lake-rows-*.duckdb")] if forget else ():
        remembered.unlink()
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def _rounded(value):
    """Floats to 6 decimals: sums taken in another order differ in the last bits."""
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def paired(db: Path, lake: Path, repeat: int, forget: Path | None = None) -> dict:
    commands = {"db": [*HOTDB, "--db", str(db), "top", "--all-models", "-f", "json"],
                "lake": [*HOTDB, "--lake", str(lake), "top", "--all-models", "-f", "json"]}
    same = {k: subprocess.run(c, check=True, capture_output=True, text=True).stdout for k, c in commands.items()}
    assert _rounded(json.loads(same["db"])) == _rounded(json.loads(same["lake"])), "the lake and the file disagree"
    times = {"db": [], "lake": []}
    for _ in range(repeat):
        for name in random.sample(list(commands), 2):
            times[name].append(wall(commands[name], forget if name == "lake" else None))
    ratios = [lake / db for lake, db in zip(times["lake"], times["db"])]
    return {"db_s": statistics.median(times["db"]), "lake_s": statistics.median(times["lake"]),
            "ratio": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=8)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"  # this bench's own: what its readers remember is its to remove
        os.environ["HOTDB_CACHE_DIR"] = str(cache)
        db, lake, db_s, lake_s = build(Path(tmp), args.models, args.runs)
        files = len(list(lake.rglob("*.parquet")))
        result = {"models": args.models, "runs": args.models * args.runs, "ingest_db_s": round(db_s, 1),
                  "ingest_lake_s": round(lake_s, 1), "lake_files": files, "as_written": paired(db, lake, args.repeat),
                  "as_written_first_read": paired(db, lake, args.repeat, forget=cache)}
        subprocess.run([*HOTDB, "lake", "compact", str(lake)], check=True, capture_output=True,
                       env={**os.environ, "HOTDB_LAKE_RETENTION": "0"})
        result["compacted_files"] = len(list(lake.rglob("*.parquet")))
        result["compacted"] = paired(db, lake, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['models']} models, {result['runs']} runs; ingest: file {db_s:.1f} s, lake {lake_s:.1f} s")
    for name, files in (("as_written", result["lake_files"]), ("as_written_first_read", result["lake_files"]),
                        ("compacted", result["compacted_files"])):
        r = result[name]
        print(f"top --all-models, lake {name} ({files} Parquet files): file {r['db_s']:.3f} s, lake {r['lake_s']:.3f} s, "
              f"lake/file {r['ratio']:.2f}x (pairs {r['ratio_min']:.2f}-{r['ratio_max']:.2f})")


if __name__ == "__main__":
    main()
