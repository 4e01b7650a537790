"""CLI start: wall time of `hotdb --help` and `hotdb top` on a small database (the bundled
VGG-16 example), against a bare `python -c pass` in the same script, and the modules the
two commands import, heaviest first (`python -X importtime`).

    python bench/cli_start.py [--repeat 10] [--imports 12]
"""

from __future__ import annotations

import argparse
import os
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


def wall(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def imports(command: list[str], count: int) -> list[tuple[str, float]]:
    """(top-level package, cumulative import ms) of what command imports, heaviest first."""
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    err = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stderr
    packages: dict[str, float] = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        if not cumulative.isdigit():
            continue
        if name == name.lstrip():  # a top-level import (nested ones are indented)
            packages[name] = packages.get(name, 0.0) + int(cumulative) / 1000
    return sorted(packages.items(), key=lambda item: -item[1])[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--imports", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "vgg16.duckdb"
        Hotdb(db).ingest(example_files("vgg16"), model="vgg16")
        commands = {
            "python -c pass (baseline)": [sys.executable, "-c", "pass"],
            "hotdb --help": HOTDB + ["--help"],
            "hotdb top --coverage 90": HOTDB + ["--db", str(db), "top", "--coverage", "90"],
        }
        baseline = None
        print("| command | median wall (s) | minus bare python (s) |")
        print("|---|---|---|")
        for title, command in commands.items():
            seconds = wall(command, args.repeat)
            baseline = seconds if baseline is None else baseline
            print(f"| `{title}` | {seconds:.3f} | {seconds - baseline:.3f} |", flush=True)
        for title in ("hotdb --help", "hotdb top --coverage 90"):
            found = imports(commands[title], args.imports)
            print(f"\n`{title}` imports (top level, cumulative ms): "
                  + ", ".join(f"{name} {ms:.0f}" for name, ms in found))
            assert not any(name == "tvm" or name.startswith("tvm.") for name, _ in found), "tvm imported"


if __name__ == "__main__":
    main()
