"""Ingest throughput and memory: hotdb's ingest of a large profile against DuckDB's own
reader loading the same file into a table, in one script.

Inputs are generated from the bundled ResNet-50 report fixture
(tests/data/profile-report/resnet50_nhwc.report.json): its calls repeated, with the batch
size varied over 1..8 (a few hundred distinct kernel signatures, as a night of serving
profiles has) and every duration drawn within +-20 %. Formats as TVM writes them:
Report.csv(), Report.json(), and a graph debug executor dump folder.

For each file: hotdb's `ingest` (parse, canonicalise, store, match) into a new database
file, against `CREATE TABLE t AS SELECT * FROM read_csv / read_json(...)` into a new
DuckDB file. ratio = DuckDB's seconds / hotdb's seconds (goal >= 0.5). Peak memory
(max RSS) is measured in a child process per reader, on a CSV larger than --big-gb.

    python bench/ingest.py [--calls 1000000] [--dump-nodes 200000] [--big-gb 1.1] [--repeat 3]
                           [--only csv|json|dump]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "profile-report" / "resnet50_nhwc.report.json"
CSV_COLUMNS = ["Argument Shapes", "Count", "Device", "Duration (us)", "Hash", "Name", "Percent", "data_layout",
               "dst_layout", "kernel_layout", "layout", "out_layout", "src_layout"]


def signatures() -> list[dict]:
    """The fixture's calls (flat: column -> value) at batch sizes 1..8."""
    calls = json.loads(FIXTURE.read_text())["calls"]
    flat = [{key: next(iter(metric.values())) for key, metric in call.items()} for call in calls]
    out = []
    for batch in range(1, 9):
        for call in flat:
            varied = dict(call)
            varied["Argument Shapes"] = call["Argument Shapes"].replace("[1, ", f"[{batch}, ")
            varied["Duration (us)"] = call["Duration (us)"] * batch
            out.append(varied)
    return out


def _calls(count: int, seed: int = 0):
    rng = random.Random(seed)
    jitter = [rng.uniform(0.8, 1.2) for _ in range(4096)]
    sigs = signatures()
    for i in range(count):
        yield i, sigs[i % len(sigs)], jitter[i % 4093]


def write_csv(path: Path, count: int) -> Path:
    """Report.csv(): sorted header, one call per line, strings quoted."""
    with path.open("w") as out:
        out.write(",".join(CSV_COLUMNS) + "\n")
        lines = []
        for _, call, jitter in _calls(count):
            cells = []
            for column in CSV_COLUMNS:
                value = call.get(column, "")
                if column == "Duration (us)":
                    value = round(value * jitter, 3)
                cells.append(f'"{value}"' if isinstance(value, str) else str(value))
            lines.append(",".join(cells))
            if len(lines) == 100_000:
                out.write("\n".join(lines) + "\n")
                lines = []
        out.write("\n".join(lines) + ("\n" if lines else ""))
    return path


_METRIC = {"Count": "count", "Duration (us)": "microseconds", "Percent": "percent"}


def write_json(path: Path, count: int) -> Path:
    """Report.json(): one object, calls with typed metrics, on one line as TVM writes it."""
    with path.open("w") as out:
        out.write('{"calls":[')
        for i, call, jitter in _calls(count):
            metrics = {}
            for key, value in call.items():
                if key == "Duration (us)":
                    value = round(value * jitter, 3)
                metrics[key] = {_METRIC.get(key, "string"): value}
            out.write(("," if i else "") + json.dumps(metrics, separators=(",", ":")))
        out.write('],"device_metrics":{"cpu0":{"Count":{"count":%d}}},"configuration":{"Executor":{"string":"Graph"}}}' % count)
    return path


def write_dump(folder: Path, nodes: int) -> Path:
    """A debug executor dump folder: a graph of `nodes` kernel nodes in a chain (each
    fixture kernel at its shapes, one param per weight) and its B/E trace."""
    folder = folder / "_tvmdbg_device_CPU_0"
    folder.mkdir(parents=True, exist_ok=True)
    graph, events, ts = [], [], 0.0
    for i, call, jitter in _calls(nodes):
        shapes = [[int(d) for d in s.split("[")[1].rstrip("]").split(",")]
                  for s in call["Argument Shapes"].split("], ")[:-1] + [call["Argument Shapes"].rsplit("], ", 1)[-1]]]
        shapes = [list(map(int, s)) for s in shapes]
        inputs = []
        for k, shape in enumerate(shapes[:-1]):
            name = f"p{i}_{k}"
            graph.append({"op": "param", "name": name, "inputs": [], "attrs": {"T": "type: float32"}, "shape": shape})
            inputs.append(name)
        attrs = {"func_name": call["Name"], "num_inputs": str(len(inputs)), "num_outputs": "1", "T": "type: float32",
                 **{k: v for k, v in call.items() if "layout" in k and v}}
        name = f"{call['Name']}__{i}"
        graph.append({"op": call["Name"], "name": name, "inputs": inputs, "shape": shapes[-1], "attrs": attrs})
        duration = round(call["Duration (us)"] * jitter, 3)
        events.append({"ts": ts, "tid": 1, "pid": 1, "name": name, "ph": "B"})
        ts += duration
        events.append({"ts": ts, "tid": 1, "pid": 1, "name": name, "ph": "E"})
    (folder / "_tvmdbg_graph_dump.json").write_text(json.dumps({"nodes": graph}))
    (folder / "_tvmdbg_execution_trace.json").write_text(json.dumps({"displayTimeUnit": "ns", "traceEvents": events}))
    return folder


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def time_hotdb(path: Path, work: Path) -> float:
    from hotdb.api import Hotdb

    db = work / f"hotdb-{time.monotonic_ns()}.duckdb"
    start = time.perf_counter()
    Hotdb(db).ingest([path], model="bench")
    elapsed = time.perf_counter() - start
    db.unlink()
    return elapsed


def time_duckdb(scans: list[str], work: Path) -> float:
    db = work / f"duckdb-{time.monotonic_ns()}.duckdb"
    start = time.perf_counter()
    con = duckdb.connect(str(db))
    for i, scan in enumerate(scans):
        con.execute(f"CREATE TABLE t{i} AS SELECT * FROM {scan}")
    con.close()
    elapsed = time.perf_counter() - start
    db.unlink()
    return elapsed


def duckdb_scans(kind: str, path: Path) -> list[str]:
    if kind == "csv":
        return [f"read_csv({_literal(path)})"]
    if kind == "json":
        return [f"read_json({_literal(path)}, maximum_object_size = {path.stat().st_size + 1})"]
    files = sorted(path.iterdir())
    return [f"read_json({_literal(f)}, maximum_object_size = {f.stat().st_size + 1})" for f in files]


# VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec
PEAK = """
import re
print(time.perf_counter() - start, re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1))
"""

PEAK_HOTDB = """
import sys, time
from hotdb.api import Hotdb
start = time.perf_counter()
Hotdb(sys.argv[1]).ingest([sys.argv[2]], model="bench")
""" + PEAK

PEAK_DUCKDB = """
import sys, time, duckdb
start = time.perf_counter()
con = duckdb.connect(sys.argv[1])
con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{sys.argv[2]}')")
con.close()
""" + PEAK


def peak(script: str, work: Path, path: Path, memory_limit: str | None = None) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of a child process running script on path."""
    db = work / f"peak-{time.monotonic_ns()}.duckdb"
    env = dict(os.environ, **({"HOTDB_MEMORY_LIMIT": memory_limit} if memory_limit else {}))
    out = subprocess.run([sys.executable, "-c", script, str(db), str(path)], capture_output=True, text=True, check=True,
                         env=env)
    db.unlink(missing_ok=True)
    seconds, rss_kib = out.stdout.split()[-2:]  # after any progress bar
    return float(seconds), int(rss_kib) / 1024


def main() -> None:
    # the 200,000-node dump's graph is 122 MiB of JSON, above the 64 MiB hotdb reads by
    # default (a real model's dump is a few MB): this bench raises the limit, as a user would
    os.environ.setdefault("HOTDB_MAX_READ_BYTES", "1GiB")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--dump-nodes", type=int, default=200_000)
    parser.add_argument("--big-gb", type=float, default=1.1, help="size of the peak-memory CSV; 0 skips it")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peak-only", action="store_true", help="only the peak-memory run")
    parser.add_argument("--only", choices=("csv", "json", "dump"), default=None, help="time one input only")
    parser.add_argument("--work", type=Path, default=None, help="folder for the generated files (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        work = Path(tmp)
        writers = [("report CSV", "csv", lambda: write_csv(work / "report.csv", args.calls), args.calls),
                   ("report JSON", "json", lambda: write_json(work / "report.json", args.calls), args.calls),
                   ("debug dump", "dump", lambda: write_dump(work / "dump", args.dump_nodes), args.dump_nodes)]
        inputs = [] if args.peak_only else [(title, kind, write(), calls) for title, kind, write, calls in writers
                                            if args.only in (None, kind)]
        if inputs:
            print("| input | calls | size (MB) | hotdb ingest (s) | DuckDB read into a table (s) | ratio |")
            print("|---|---|---|---|---|---|")
        for title, kind, path, calls in inputs:
            size = sum(f.stat().st_size for f in path.rglob("*")) if path.is_dir() else path.stat().st_size
            scans = duckdb_scans(kind, path)
            ours = statistics.median(time_hotdb(path, work) for _ in range(args.repeat))
            theirs = statistics.median(time_duckdb(scans, work) for _ in range(args.repeat))
            print(f"| {title} | {calls:,} | {size / 1e6:,.0f} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.2f} |", flush=True)
        for title, kind, path, calls in inputs:
            if path.is_dir():
                continue
            path.unlink()
        if args.big_gb > 0 and args.only is None:
            probe = write_csv(work / "probe.csv", 10_000)
            per_call = probe.stat().st_size / 10_000
            probe.unlink()
            count = int(args.big_gb * 1e9 / per_call) + 1
            big = write_csv(work / "big.csv", count)
            size = big.stat().st_size
            ours = peak(PEAK_HOTDB, work, big)
            capped = peak(PEAK_HOTDB, work, big, memory_limit="500MB")
            theirs = peak(PEAK_DUCKDB, work, big)
            print()
            print(f"peak memory, report CSV of {size / 1e9:.2f} GB ({count:,} calls), each in its own process:")
            print("| reader | wall (s) | peak RSS (MiB) |")
            print("|---|---|---|")
            print(f"| hotdb ingest | {ours[0]:.1f} | {ours[1]:,.0f} |")
            print(f"| hotdb ingest, HOTDB_MEMORY_LIMIT=500MB | {capped[0]:.1f} | {capped[1]:,.0f} |")
            print(f"| DuckDB read_csv into a table | {theirs[0]:.1f} | {theirs[1]:,.0f} |")


if __name__ == "__main__":
    main()
