"""One long line, read or refused: `hotdb ingest` as a whole process on texts that are a
single line of SIZE bytes, in shapes that once took a reader quadratic time (cells two
spaces apart under a Report's header: 36 s at 1.8 MB, 295 s at 3.6 MB before issue 43).

The baseline, in the same run, is the same bytes as short lines (a line per 100 bytes):
the ratio (one line / short lines) says how far a long line costs more than its bytes.
Each figure is the median of --repeat runs; the outcome is hotdb's exit code and first line.

    python bench/long_line.py [--sizes-mib 1.8,3.6,16] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = (ROOT / "tests/data/profile-report/resnet50_nhwc.report.txt").read_text().splitlines()[0]
SHAPES = {
    "report cells": lambda n: HEADER + "\n" + "x  " * (n // 3),
    "one word": lambda n: "a" * n,
    "spaced words": lambda n: "ab " * (n // 3),
}


def short_lines(text: str) -> str:
    return "\n".join(text[i:i + 100] for i in range(0, len(text), 100))


def timed(path: Path, repeat: int) -> tuple[float, str]:
    times, outcome = [], ""
    for _ in range(repeat):
        db = path.with_suffix(".duckdb")
        db.unlink(missing_ok=True)
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(db), "ingest", str(path), "--model", "m"],
                              capture_output=True, text=True)
        times.append(time.perf_counter() - began)
        lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
        outcome = f"exit {done.returncode}: {lines[-1][:70] if lines else ''}"
    return statistics.median(times), outcome


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes-mib", default="1.8,3.6,16")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| shape | size | one line (s) | outcome | as short lines (s) | ratio |")
    print("|---|---:|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in SHAPES.items():
            for mib in (float(s) for s in args.sizes_mib.split(",")):
                text = make(int(mib * 2**20))
                one, lines = Path(tmp) / "one.txt", Path(tmp) / "lines.txt"
                one.write_text(text + "\n")
                lines.write_text(short_lines(text) + "\n")
                long_s, outcome = timed(one, args.repeat)
                short_s, _ = timed(lines, args.repeat)
                print(f"| {name} | {mib:g} MiB | {long_s:.2f} | {outcome} | {short_s:.2f} | {long_s / short_s:.2f}x |",
                      flush=True)


if __name__ == "__main__":
    main()
