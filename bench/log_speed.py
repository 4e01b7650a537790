"""Parse and ingest speed of a model's tuning log, two checkouts paired run by run.

    HOTDB_REAL=../shared/real python bench/log_speed.py OLD NEW [--mib 16] [--rounds 5]

OLD and NEW are checkouts of hotdb (each run imports hotdb from it: PYTHONPATH). Each
round runs both, in alternating order, each in a fresh process, on the same AutoTVM and
auto_scheduler logs of a model (bench/reader_inputs.py MODEL_LOGS, `--mib` MiB each), and
times inside the process, imports excluded: the parse alone (Source.read and the reader),
and the whole ingest into a new database file. NEW is also run with HOTDB_STREAM_BYTES=1MiB
(the file streamed). The figure is the median of the per-round ratios NEW / OLD.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MiB = 2**20
FORMATS = {"autotvm-model-log": "autotvm-tasks", "ansor-model-log": "ansor-log"}
TIMED = """
import json, sys, time
import duckdb, pyarrow.parquet  # imported by both, at different points: not timed
from hotdb.api import Hotdb
from hotdb.ingest import get
from hotdb.ingest.source import Source
path, fmt, db = sys.argv[1:4]
started = time.perf_counter()
parsed = get(fmt).parse(Source.read(path))
count = len(parsed.records)
parse_s = time.perf_counter() - started
del parsed
started = time.perf_counter()
Hotdb(db).ingest([path], model="m")
print(json.dumps({"parse": parse_s, "ingest": time.perf_counter() - started, "records": count}))
"""


def timed(checkout: Path, path: Path, fmt: str, db: Path, env: dict) -> dict:
    db.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-c", TIMED, str(path), fmt, str(db)], check=True, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(checkout), **env})
    db.unlink(missing_ok=True)
    return json.loads(done.stdout)


def main(old: Path, new: Path, size: int, rounds: int) -> None:
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        print("| log | records | run | parse (s), median | ingest (s), median | parse ratio to old | ingest ratio to old |")
        print("|---|---|---|---|---|---|---|")
        for name, fmt in FORMATS.items():
            path = folder / f"{name}.log"
            subprocess.run([sys.executable, str(here / "reader_inputs.py"), name, str(path), str(size)], check=True,
                           capture_output=True)
            runs = {"old": [], "new": [], "new, streamed": []}
            for r in range(rounds):
                order = list(runs) if r % 2 == 0 else list(reversed(runs))
                for label in order:
                    checkout = old if label == "old" else new
                    env = {"HOTDB_STREAM_BYTES": "1MiB"} if label.endswith("streamed") else {}
                    runs[label].append(timed(checkout, path, fmt, folder / "db.duckdb", env))
            for label, results in runs.items():
                ratio = {kind: statistics.median(res[kind] / base[kind] for res, base in zip(results, runs["old"]))
                         for kind in ("parse", "ingest")}
                print(f"| {name}, {size / MiB:.0f} MiB | {results[0]['records']:,} | {label} | "
                      f"{statistics.median(r['parse'] for r in results):.2f} | "
                      f"{statistics.median(r['ingest'] for r in results):.2f} | {ratio['parse']:.2f} | "
                      f"{ratio['ingest']:.2f} |", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 2 or {"-h", "--help"} & set(args):
        sys.exit(__doc__)
    mib = int(args[args.index("--mib") + 1]) if "--mib" in args else 16
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 5
    main(Path(args[0]).resolve(), Path(args[1]).resolve(), mib * MiB, rounds)
