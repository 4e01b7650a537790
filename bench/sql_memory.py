"""`hotdb sql` on a result larger than its memory limit: peak resident memory of the whole
process, streamed (this hotdb's `hotdb sql`, rows written a batch at a time) against the
baseline of the same query held whole in Python (`Hotdb.sql`, what `hotdb sql` did before
issue 43), each in a process of its own under the same --memory-limit.

The streamed figure is taken at --rows (2,000,000 rows of 1,000 characters: 2 GB of
result); the baseline, whose memory grows with the result, at --baseline-rows (it reached
6.2 GB at 2 GB), and the streamed one again there for the ratio.

    python bench/sql_memory.py [--rows 2000000] [--baseline-rows 200000] [--memory-limit 100MB] [--format csv]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hotdb.api import Hotdb
from hotdb.examples import example_files

# the child reports its own peak (RUSAGE_SELF): its output goes to /dev/null
HELD = """import resource, sys
from hotdb.api import Hotdb
result = Hotdb(sys.argv[1]).sql(sys.argv[2], memory_limit=sys.argv[3])
print(len(result.rows), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""
STREAMED = """import resource, runpy, sys
sys.argv = ["hotdb", *sys.argv[1:]]
try:
    runpy.run_module("hotdb", run_name="__main__")
finally:
    sys.stderr.write(f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}\\n")
"""


def query(rows: int) -> str:
    return f"SELECT i, repeat('x', 1000) AS s FROM range({int(rows)}) AS t(i)"


def streamed(db: Path, rows: int, limit: str, fmt: str) -> tuple[int, float]:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", STREAMED, "--db", str(db), "sql", query(rows), "--memory-limit", limit,
                           "-f", fmt], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = int(done.stderr.strip().splitlines()[-1].split()[1])
    return peak, time.perf_counter() - began


def held(db: Path, rows: int, limit: str) -> tuple[int, float]:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", HELD, str(db), query(rows), limit], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    return int(done.stdout.split()[1]), time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--baseline-rows", type=int, default=200_000)
    parser.add_argument("--memory-limit", default="100MB")
    parser.add_argument("--format", default="csv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "db.duckdb"
        Hotdb(db).ingest([next(f for f in example_files("vgg16") if f.name.endswith("debug_table.txt"))], model="m")
        base_peak, base_s = held(db, args.baseline_rows, args.memory_limit)
        small_peak, small_s = streamed(db, args.baseline_rows, args.memory_limit, args.format)
        big_peak, big_s = streamed(db, args.rows, args.memory_limit, args.format)
    mb = lambda rows: rows * 1000 / 1e6  # noqa: E731 - the result's size in MB
    print("| result | held whole (baseline) | streamed | streamed / held |")
    print("|---|---:|---:|---:|")
    print(f"| {mb(args.baseline_rows):,.0f} MB | {base_peak:,} MiB ({base_s:.1f} s) | {small_peak:,} MiB ({small_s:.1f} s) "
          f"| {small_peak / base_peak:.2f} |")
    print(f"| {mb(args.rows):,.0f} MB | (not run) | {big_peak:,} MiB ({big_s:.1f} s) | |")


if __name__ == "__main__":
    main()
