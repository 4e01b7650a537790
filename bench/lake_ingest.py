"""An ingest into a lake against the same ingest into a database file: whole `hotdb ingest`
processes, paired ingest by ingest, and where a lake ingest's time goes.

Both stores receive the same ingests in the same order: `--models` models, each the
bundled VGG-16 build's IR and tasks, then `--runs` distinct profiles (the example's debug
table under a comment of its own). Each pair runs the two processes in a random order;
the figure is the median of the per-pair ratios (lake / file), over every ingest and over
the profiles alone (what a CI job adds each day). The lake's writers compact on their
own (HOTDB_LAKE_AUTO_COMPACT), as users' do: the pairs that paid for it are counted.

Then, in one process, `--phases` more profile ingests into the lake, timed between the
failpoints the lake's write path passes (hotdb/failpoints.py): reading the commit log,
the snapshot of the model and the load into it, the Delta appends, the commit, and what
follows it (the writers' compaction).

    python bench/lake_ingest.py [--models 4] [--runs 6] [--phases 12] [--json]
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
from collections import defaultdict
from pathlib import Path

from lake_top import profile  # the example's table as a distinct file (bench/ is on the path)

from hotdb import failpoints
from hotdb.api import Hotdb
from hotdb.examples import example_files

HOTDB = [sys.executable, "-m", "hotdb"] if shutil.which("hotdb") is None else [shutil.which("hotdb")]
# the lake's write path, in order: each phase ends at its failpoint (the last at the return)
PHASES = [("lake-read-log", "open the lake and read its commit log"),
          ("before-commit", "the model's snapshot, and the load into it"),
          ("lake-written", "the Delta appends"),
          ("lake-committed", "the commit"),
          (None, "after the commit (the writers' compaction)")]


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "HOTDB_CACHE_DIR": CACHE})
    return time.perf_counter() - start


def paired(tmp: Path, models: int, runs: int) -> dict:
    ir = [str(f) for f in example_files("vgg16") if not f.name.endswith("debug_table.txt")]
    stores = {"file": ["--db", str(tmp / "db.duckdb")], "lake": ["--lake", str(tmp / "lake")]}
    pairs = []  # (kind, file s, lake s, lake files before)
    for m in range(models):
        jobs = [("ir", ir)] + [("profile", [str(profile(tmp / f"m{m}-r{r}.txt", f"m{m}-r{r}"))]) for r in range(runs)]
        for kind, paths in jobs:
            seconds = {}
            for name in random.sample(list(stores), 2):
                seconds[name] = wall([*HOTDB, *stores[name], "ingest", *paths, "--model", f"model-{m}"])
            pairs.append((kind, seconds["file"], seconds["lake"]))
    return {kind: _summary([p for p in pairs if kind == "all" or p[0] == kind]) for kind in ("all", "profile")}


def _summary(pairs: list) -> dict:
    ratios = [lake / file for _, file, lake in pairs]
    return {"pairs": len(pairs), "file_s": statistics.median(p[1] for p in pairs),
            "lake_s": statistics.median(p[2] for p in pairs), "ratio": statistics.median(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios), "file_total_s": sum(p[1] for p in pairs),
            "lake_total_s": sum(p[2] for p in pairs)}


def phases(tmp: Path, count: int) -> dict:
    """Seconds in each phase of `count` profile ingests into the lake, in this process."""
    lake = Hotdb(lake=tmp / "lake")
    spent: dict[str, list[float]] = defaultdict(list)
    marks: list[tuple[str, float]] = []
    failpoints.install(lambda name: marks.append((name, time.perf_counter())))
    try:
        for n in range(count):
            path = profile(tmp / f"phase-{n}.txt", f"phase-{n}")
            marks.clear()
            start = time.perf_counter()
            lake.ingest([path], model="model-0")
            end = time.perf_counter()
            seen = {}
            for name, at in marks:
                seen.setdefault(name, at)  # the first time each step is reached
            before = start
            for name, what in PHASES:
                at = end if name is None else seen.get(name, before)
                spent[what].append(at - before)
                before = at
    finally:
        failpoints.install(None)
    return {what: {"median_s": statistics.median(v), "total_s": sum(v)} for what, v in spent.items()}


def main() -> None:
    global CACHE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--phases", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        CACHE = str(Path(tmp) / "cache")  # the empty-database template made once, as in a user's cache
        os.environ["HOTDB_CACHE_DIR"] = CACHE
        result = {"models": args.models, "runs": args.runs, "load_before": os.getloadavg()[0]}
        result.update(paired(Path(tmp), args.models, args.runs))
        result["phases"] = phases(Path(tmp), args.phases)
        result["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{args.models} models x (IR and tasks, {args.runs} profiles); load average {result['load_before']:.1f} "
          f"before, {result['load_after']:.1f} after")
    for kind in ("all", "profile"):
        r = result[kind]
        print(f"{kind:8} {r['pairs']:3} pairs: file {r['file_s']:.3f} s, lake {r['lake_s']:.3f} s (medians); "
              f"lake/file {r['ratio']:.2f}x (pairs {r['ratio_min']:.2f}-{r['ratio_max']:.2f}); "
              f"totals file {r['file_total_s']:.1f} s, lake {r['lake_total_s']:.1f} s")
    print(f"a lake ingest of a profile, in one process ({args.phases} ingests), median seconds a phase:")
    for what, r in result["phases"].items():
        print(f"  {r['median_s']:.3f}  {what}")


CACHE = ""

if __name__ == "__main__":
    main()
