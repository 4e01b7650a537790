"""CLI start: `hotdb top --coverage 90 -f json` as a whole process against a bare Python
process that does the same read by hand (import duckdb, open the file read-only, run
queries/commands/top_task.sql, print the rows as JSON), paired run by run on the bundled
VGG-16 example database; `hotdb --help` against `python -c pass`; and the modules `top`
imports, heaviest first (`python -X importtime`).

    python bench/cli_start.py [--repeat 20] [--imports 12]

Each pair runs its two processes back to back, in alternating order, so that load which
comes and goes hits both: the figure is the median of the pairs' ratios, with the
quartiles as its noise.
"""

from __future__ import annotations

import argparse
import json
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
from hotdb.resources import sql

HOTDB = [sys.executable, "-m", "hotdb"] if shutil.which("hotdb") is None else [shutil.which("hotdb")]

# what `top --coverage 90 -f json` reads, done by hand: the least a process must do
BARE_TOP = """
import json, sys
import duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
cur = con.execute(open(sys.argv[2]).read(), {"run_id": int(sys.argv[3]), "coverage_pct": 90.0, "basis": "tunable"})
names = [d[0] for d in cur.description]
sys.stdout.write(json.dumps([dict(zip(names, row)) for row in cur.fetchall()], indent=2, default=str) + "\\n")
"""


# as on a user's machine: modules run from their compiled bytecode (pip writes it at
# install; an environment that forbids writing it recompiles hotdb at every start, +35 ms)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - start


def paired(ours: list[str], bare: list[str], repeat: int) -> tuple[float, float, list[float]]:
    """(median seconds of ours, of bare, the ratios ours / bare of each pair)."""
    mine, theirs, ratios = [], [], []
    for i in range(repeat):
        if i % 2:
            b, o = seconds(bare), seconds(ours)
        else:
            o, b = seconds(ours), seconds(bare)
        mine.append(o)
        theirs.append(b)
        ratios.append(o / b)
    return statistics.median(mine), statistics.median(theirs), ratios


def imports(command: list[str], count: int) -> list[tuple[str, float]]:
    """(top-level module, cumulative import ms) of what command imports, heaviest first."""
    env = dict(ENV, PYTHONPROFILEIMPORTTIME="1")
    err = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stderr
    modules: dict[str, float] = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        if cumulative.isdigit() and name == name.lstrip():  # a top-level import (nested ones are indented)
            modules[name] = modules.get(name, 0.0) + int(cumulative) / 1000
    return sorted(modules.items(), key=lambda item: -item[1])[:count]


def quartiles(values: list[float]) -> str:
    q1, q2, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return f"{q2:.2f} ({q1:.2f}-{q3:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--imports", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db, query = Path(tmp) / "vgg16.duckdb", Path(tmp) / "top_task.sql"
        Hotdb(db).ingest(example_files("vgg16"), model="vgg16")
        query.write_text(sql("commands", "top_task"))
        top = HOTDB + ["--db", str(db), "top", "--coverage", "90", "-f", "json"]
        run_id = json.loads(subprocess.run(HOTDB + ["--db", str(db), "sql", "SELECT max(run_id) AS id FROM runs",
                                                    "-f", "json"], check=True, capture_output=True,
                                           text=True).stdout)[0]["id"]
        bare = [sys.executable, "-c", BARE_TOP, str(db), str(query), str(run_id)]
        # the first runs also write the bytecode of what they import
        same = [json.loads(subprocess.run(c, check=True, capture_output=True, text=True, env=ENV).stdout)
                for c in (top, bare)]
        assert [r["task_name"] for r in same[0]] == [r["task_name"] for r in same[1]], "not the same rows"
        print("| process | its baseline | median wall (s) | baseline (s) | ratio, median of pairs (quartiles) |")
        print("|---|---|---|---|---|")
        for title, ours, base_title, base in (
                ("hotdb top --coverage 90 -f json", top, "the same query by hand", bare),
                ("hotdb --help", HOTDB + ["--help"], "python -c pass", [sys.executable, "-c", "pass"])):
            mine, theirs, ratios = paired(ours, base, args.repeat)
            print(f"| `{title}` | {base_title} | {mine:.3f} | {theirs:.3f} | {quartiles(ratios)} |", flush=True)
        found = imports(top, args.imports)
        print("\n`hotdb top` imports (top level, cumulative ms): " + ", ".join(f"{n} {ms:.0f}" for n, ms in found))
        assert not any(name == "tvm" or name.startswith("tvm.") for name, _ in found), "tvm imported"


if __name__ == "__main__":
    main()
