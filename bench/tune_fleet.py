"""Tuning through TVM's RPC tracker: trials a minute with 1 and 2 device servers under one
key (MetaSchedule's RPCRunner measuring each batch on every free device at once,
capture/tune/runner.py), against the local runner in the same run, and where a trial's
time goes.

    python bench/tune_fleet.py [--model mlp] [--trials 32] [--servers 1,2] [--no-local] [--repeats 3]

Each configuration is one `hotdb tune MODEL --trials T --rounds 1` on a fresh database,
work folder and cost model (each starts cold: the same small search), the servers
started on 127.0.0.1 for it under a key of its own and stopped after. Throughput is
trials over the seconds of the tune's batches (dispatch to join), which leaves out the
tuner's start (importing TVM, ~10-20 s) and the round's re-profile. With --repeats N the
configurations run in turn N times (their order rotated each time), and the ratio is of
the medians. Where the time goes
comes from MetaSchedule's profiler (building: SendToBuilder; waiting for the runner:
JoinRunnerFutures; the cost model's update; the search) and from the runner's own log of
each trial (upload and measure seconds, summed over devices: they overlap). Prints one
JSON line a configuration, then a table; the machine's load average with each.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hotdb import Hotdb
from hotdb.capture.tracker import Tracker

PARTS = {"build": ("SendToBuilder",), "runner wait": ("JoinRunnerFutures",),
         "cost model": ("MeasureCallback/UpdateCostModel",), "search": ("EvoSearch",)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn(args: list[str], log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(args, stdout=out, stderr=out, start_new_session=True)


def start_fleet(folder: Path, servers: int, key: str) -> tuple[str, list[subprocess.Popen]]:
    port = free_port()
    procs = [spawn([sys.executable, "-m", "tvm.exec.rpc_tracker", "--host", "127.0.0.1", "--port", str(port),
                    "--port-end", str(port + 1)], folder / "tracker.log")]
    tracker = f"127.0.0.1:{port}"
    for i in range(servers):
        server_port = free_port()
        procs.append(spawn([sys.executable, "-m", "tvm.exec.rpc_server", "--tracker", tracker, "--key", key,
                            "--host", "127.0.0.1", "--port", str(server_port), "--port-end", str(server_port + 10)],
                           folder / f"server{i}.log"))
    started = time.monotonic()
    while time.monotonic() - started < 300:
        try:
            with Tracker(tracker) as connection:
                if len(connection.servers(key)) == servers:
                    return tracker, procs
        except Exception:  # noqa: BLE001 - the tracker is still starting
            pass
        time.sleep(0.5)
    raise SystemExit(f"the fleet of {servers} did not start: see {folder}")


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def tune(model: str, trials: int, folder: Path, rpc: str | None, key: str | None, servers: int = 0) -> dict:
    os.environ["HOTDB_CACHE_DIR"] = str(folder / "cache")  # a cold cost model each
    load = os.getloadavg()[0]
    started = time.monotonic()
    result = Hotdb(folder / "hotdb.duckdb").tune(model, coverage=100, trials=trials, max_rounds=1, repeat=2,
                                                 work_dir=folder / "work", rpc=rpc, key=key,
                                                 build_timeout_s=900, run_timeout_s=300)
    wall = time.monotonic() - started
    (first,) = result.facts["rounds"]
    parts = first["parts_s"]
    done = first["trials"]
    row = {"runner": f"rpc x{servers}" if rpc else "local",
           "trials": done, "valid": first["valid_trials"], "batches_s": first["batches_s"],
           "trials_a_minute": round(60 * done / first["batches_s"], 2), "round_s": first["seconds"],
           "command_s": round(wall, 1), "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}
    for name, keys in PARTS.items():
        row[f"{name} s/trial"] = round(sum(v for k, v in parts.items() if k.startswith(keys)) / done, 3)
    # what the parts above leave of a batch (the local runner's wait is not among
    # MetaSchedule's profiled parts: it is in here)
    row["rest s/trial"] = round(first["batches_s"] / done - sum(row[f"{name} s/trial"] for name in PARTS), 3)
    devices = first["devices"]
    if devices:
        row["upload s/trial"] = round(devices["upload_s"] / done, 3)
        row["measure s/trial"] = round(devices["measure_s"] / done, 3)
        row["per device"] = devices["measured"]
    return row


def one(model: str, trials: int, folder: Path, servers: int) -> dict:
    """One configuration: the local runner (0 servers), or a fleet of `servers`."""
    folder.mkdir()
    if not servers:
        return tune(model, trials, folder, None, None)
    key = f"fleet{servers}"
    tracker, procs = start_fleet(folder, servers, key)
    try:
        return tune(model, trials, folder, tracker, key, servers)
    finally:
        stop(procs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--servers", default="1,2")
    parser.add_argument("--no-local", action="store_true")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    configs = ([] if args.no_local else [0]) + [int(n) for n in args.servers.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="hotdb-fleet-") as root:
        for repeat in range(args.repeats):
            for count in configs[repeat % len(configs):] + configs[:repeat % len(configs)]:
                rows.append(one(args.model, args.trials, Path(root) / f"{repeat}-{count}", count))
                print(json.dumps(rows[-1]), flush=True)
    columns = ["runner", "trials", "batches_s", "trials_a_minute", "build s/trial", "runner wait s/trial",
               "upload s/trial", "measure s/trial", "cost model s/trial", "search s/trial", "rest s/trial",
               "load_before"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    medians = {runner: statistics.median(r["trials_a_minute"] for r in rows if r["runner"] == runner)
               for runner in dict.fromkeys(r["runner"] for r in rows)}
    print("median trials a minute: " + ", ".join(f"{k} {v:.1f}" for k, v in medians.items()))
    if "rpc x1" in medians and "rpc x2" in medians:
        print(f"2 servers against 1: {medians['rpc x2'] / medians['rpc x1']:.2f}x the trials a minute")
    print(f"machine: {os.cpu_count()} CPUs, {re.sub(r'  +', ' ', open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip())}")


if __name__ == "__main__":
    main()
