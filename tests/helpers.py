"""What tests share besides fixtures (conftest.py): where data lies, and small readers.

Third-party artifacts (`../shared/`: public samples, real files, pasted texts, the
forum thread) are never copied here; they are read where they lie. Where the shared
folder is beside this checkout (as CI lays it), a file a test names must be there: a
missing one fails the test, loudly, so that a test can never rot skipped. Only where the
whole folder is absent (a clone on its own) do such tests skip, saying why.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from hotdb.examples import make_vgg16 as gen

ROOT = Path(__file__).resolve().parents[1]  # the repository
DATA = ROOT / "tests" / "data"  # artifacts of our own making (data/README.md)
SHARED = Path(os.environ.get("HOTDB_SHARED", ROOT.parent / "shared"))
SAMPLES = Path(os.environ.get("HOTDB_SAMPLES", SHARED / "formats" / "samples"))  # public samples
REAL = Path(os.environ.get("HOTDB_REAL", SHARED / "real"))  # real artifacts (PROVENANCE.md)
# real pasted texts found in issues, PRs, forum posts and blogs (sources: data/<folder>/SOURCES.md)
PASTES = Path(os.environ.get("HOTDB_PASTES", REAL / "pastes"))
SEED = Path(os.environ.get("HOTDB_SEED", SHARED / "seed"))  # the forum thread, as posted
# VGG-16 as TVM 0.9 prints its debug table (a second build of the example)
TVM09_TABLE = DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt"


def shared(root: Path, name: str | Path = "") -> Path:
    """`root / name`, a third-party file: skipped where `root` is absent altogether, a
    failure where `root` is there and the file is not."""
    path = root / name
    if path.exists():
        return path
    if not root.is_dir():
        pytest.skip(f"{root} is not beside this checkout (set HOTDB_SHARED, or HOTDB_REAL, HOTDB_PASTES, "
                    "HOTDB_SAMPLES, HOTDB_SEED to its folders)")
    pytest.fail(f"{path} is missing from {root}, which is there: a test reads it (restore the file, or "
                "update the test and tests/real_corpus.json)", pytrace=False)


def sample(name: str) -> Path:
    return shared(SAMPLES, name)


def real(name: str) -> Path:
    return shared(REAL, name)


def parse(path, fmt=None):
    """(format name, parsed rows) of a file, detected or read as `fmt`."""
    from hotdb.ingest import detect, get
    from hotdb.ingest.source import Source

    source = Source.read(path)
    reader = get(fmt) if fmt else detect(source)
    return reader.name, reader.parse(source)


def table_counts(db: Path) -> dict[str, int]:
    """Row count of every table, to check that a failed ingest changed nothing."""
    if not db.exists():
        return {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in tables}
    finally:
        con.close()


def stored_rows(db: Path, queries: dict[str, str]) -> dict[str, list]:
    """The rows each named query reads from the database: what a whole read and a streamed
    read of one file must both store."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.execute(query).fetchall() for name, query in queries.items()}
    finally:
        con.close()


def relax_vm_report(path):
    """A Relax VM profile of tests/data/relax/small_convnet.fused.relax.py as Report.json()
    writes it (PrimFunc names, VM builtins, Argument Shapes inputs then output)."""
    calls = [
        ("vm.builtin.check_tensor_info", "float32[1, 3, 8, 8]", 0.4),
        ("reshape", "float32[16], float32[1, 16, 1, 1]", 1.1),
        ("fused_conv2d_add_relu", "float32[1, 3, 8, 8], float32[16, 3, 3, 3], float32[1, 16, 1, 1], float32[1, 16, 8, 8]", 31.5),
        ("reshape", "float32[16], float32[1, 16, 1, 1]", 1.0),
        ("fused_conv2d1_add_relu", "float32[1, 16, 8, 8], float32[16, 16, 3, 3], float32[1, 16, 1, 1], float32[1, 16, 8, 8]", 142.25),
        ("reshape1", "float32[1, 16, 8, 8], float32[1, 1024]", 2.0),
        ("transpose", "float32[10, 1024], float32[1024, 10]", 9.75),
        ("fused_matmul_add1", "float32[1, 1024], float32[1024, 10], float32[10], float32[1, 10]", 12.5),
    ]
    body = ",".join('{"Name":{"string":"%s"},"Duration (us)":{"microseconds":%.17f},"Count":{"count":1},'
                    '"Device":{"string":"cpu0"},"Argument Shapes":{"string":"%s"}}' % (n, t, a) for n, a, t in calls)
    path.write_text('{"calls":[%s],"device_metrics":{},"configuration":{"Executor":{"string":"VM"}}}' % body)
    return path


def check_all_exact(cli, truth_path):
    """Every kernel of the VGG-16 build matched by its input shapes (rule 2), as its truth says."""
    truth = json.loads(truth_path.read_text())
    matches = {m["node"]: m for m in cli("matches", "-f", "json").json()}
    assert len(matches) == len(truth)
    for row in truth:
        m = matches[row["node"]]
        if row["task_name"]:
            assert m["method"] == "workload" and m["confidence"] == 1.0, row["node"]
            assert (m["task_name"], m["task_args"]) == (row["task_name"], row["task_args"]), row["node"]
        else:
            assert m["method"] == "unmatched"


# --- hotdb run as a user runs it: in a process of its own, or in this one ---------------
def interruptible() -> None:
    """A child's preexec_fn: Ctrl-C (SIGINT) reaches it as it reaches a terminal's
    foreground job. A shell starts background jobs with SIGINT ignored (`nohup ... &`, a
    CI runner's), Python then keeps ignoring it, and a test's Ctrl-C never arrives."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def hotdb(*args, env=None, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "hotdb", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def here(*args) -> subprocess.CompletedProcess:
    """hotdb ARGS run in this process (no interpreter start): for what needs no process of
    its own, such as reading, or writing a database file one ingest at a time."""
    import contextlib
    import io

    from hotdb.cli.app import app, hoisted

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = app(args=hoisted([str(a) for a in args]), prog_name="hotdb", standalone_mode=False)
    assert not code, err.getvalue()
    return subprocess.CompletedProcess(args, code or 0, out.getvalue(), err.getvalue())


def start(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "hotdb", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


# --- answers computed from the inputs alone ----------------------------------------------
def spark_coverage_sql() -> str:
    """The query docs/lake.md gives Spark users, taken from the page itself."""
    text = (ROOT / "docs" / "lake.md").read_text()
    start = text.index("```sql spark-coverage") + len("```sql spark-coverage")
    return text[start:text.index("```", start)].strip()


def expected_minimal_tasks(truth, table_path, coverage):
    """The right answer computed from the truth alone: node times summed per task
    (task name + args), ranked, the shortest prefix reaching `coverage` % of all time."""
    lines = table_path.read_text().splitlines()
    times = {}
    for line in lines[2:]:
        cells = line.split()
        if cells and cells[0] != "Total_time":
            times[cells[0]] = float(cells[2])
    total = sum(times.values())
    per_task = {}
    for row in truth:
        if row["task_name"]:
            key = (row["task_name"], json.dumps(row["task_args"]))
            per_task[key] = per_task.get(key, 0.0) + times[row["node"]]
    ranked = sorted(per_task.items(), key=lambda kv: -kv[1])
    chosen, covered = [], 0.0
    for key, t in ranked:
        if covered >= coverage:
            break
        chosen.append(key)
        covered += 100 * t / total
    return chosen


def write_run(path, slow_factor: float, seed: int):
    rng = random.Random(16)  # the same network and kernel speeds as the example
    calls = gen.build_calls(rng)
    funcs = gen.name_kernels(calls, "tvmgen_default_")
    nodes = gen.node_names(funcs)
    slow = next(c for c in calls if c.shape_key == (256, 512, 28))  # conv4_1, one call
    slow.time_us *= slow_factor
    path.write_text(gen.debug_table(calls, funcs, nodes, random.Random(seed), measurements=True, repeats=5))
    return path


# --- TVM's RPC tracker and device servers on 127.0.0.1 ---------------------------------------
FLEET_LIFETIME_S = 3600  # no fleet outlives its tests by more: its reaper ends it
FLEET_START_S = 180  # a server imports TVM before it registers: seconds on a busy machine

# Run beside a fleet: when the test process is gone (killed: no teardown runs), or after
# the lifetime, or never if the listing is removed first (stop() did the work), it kills
# every process group the listing names.
_REAPER = r"""
import os, signal, sys, time
parent, deadline, listing = int(sys.argv[1]), time.monotonic() + float(sys.argv[2]), sys.argv[3]
while os.getppid() == parent and time.monotonic() < deadline and os.path.exists(listing):
    time.sleep(0.5)
try:
    groups = [int(line) for line in open(listing) if line.strip()]
except OSError:
    groups = []
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class Fleet:
    """TVM's RPC tracker and device servers on 127.0.0.1, on free ports, each process in a
    group of its own. `stop()` kills them; a reaper process does where the test process
    dies first (a test killed), or after `lifetime_s`. Logs go to `folder`."""

    def __init__(self, folder: Path, lifetime_s: float = FLEET_LIFETIME_S):
        self.folder, self.tracker = Path(folder), None
        self.folder.mkdir(parents=True, exist_ok=True)
        self.processes: dict[str, subprocess.Popen] = {}  # "tracker" or a server's address -> process
        self.listing = self.folder / "process-groups"
        self.listing.write_text("")
        self.reaper = subprocess.Popen([sys.executable, "-c", _REAPER, str(os.getpid()), str(lifetime_s),
                                        str(self.listing)], start_new_session=True)

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        log = (self.folder / f"{name.replace(':', '_')}.log").open("ab")
        proc = subprocess.Popen(command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        with self.listing.open("a") as listing:
            listing.write(f"{proc.pid}\n")
        return proc

    def start_tracker(self, command: list[str] | None = None) -> str:
        """The tracker (`command`, its ports left to this: a free one is added), HOST:PORT."""
        port = free_port()
        args = command or [sys.executable, "-m", "tvm.exec.rpc_tracker", "--host", "127.0.0.1"]
        proc = self._spawn("tracker", [*args, "--port", str(port), "--port-end", str(port + 10)])
        log, started = self.folder / "tracker.log", time.monotonic()
        while time.monotonic() - started < FLEET_START_S:
            found = re.search(r"bind to 127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))
            if found:
                self.tracker = f"127.0.0.1:{found.group(1)}"
                self.processes["tracker"] = proc
                return self.tracker
            assert proc.poll() is None, log.read_text(errors="replace")
            time.sleep(0.2)
        raise AssertionError(f"the tracker did not start in {FLEET_START_S} s: {log.read_text(errors='replace')}")

    def add_server(self, key: str, command: list[str] | None = None) -> str:
        """A device server registered with the tracker under `key`; its address."""
        from hotdb.capture.tracker import Tracker

        before = set(self.servers(key))
        port = free_port()
        args = command or [sys.executable, "-m", "tvm.exec.rpc_server", "--tracker", self.tracker, "--key", key,
                           "--host", "127.0.0.1"]
        proc = self._spawn(f"server-{port}", [*args, "--port", str(port), "--port-end", str(port + 10)])
        started = time.monotonic()
        while time.monotonic() - started < FLEET_START_S:
            with Tracker(self.tracker) as tracker:
                new = set(tracker.servers(key)) - before
            if new:
                address = new.pop()
                self.processes[address] = proc
                return address
            assert proc.poll() is None, (self.folder / f"server-{port}.log").read_text(errors="replace")
            time.sleep(0.3)
        raise AssertionError(f"a server of key {key} did not register in {FLEET_START_S} s")

    def servers(self, key: str) -> list[str]:
        from hotdb.capture.tracker import Tracker

        with Tracker(self.tracker) as tracker:
            return tracker.servers(key)

    def wait_free(self, key: str, count: int) -> None:
        """Until `count` devices of `key` are free (a session's server takes a few seconds
        to register again once the session ends)."""
        from hotdb.capture.tracker import Tracker

        started = time.monotonic()
        while time.monotonic() - started < FLEET_START_S:
            with Tracker(self.tracker) as tracker:
                if next((d["free"] for d in tracker.devices() if d["key"] == key), 0) >= count:
                    return
            time.sleep(0.3)
        raise AssertionError(f"{count} devices of key {key} were not free within {FLEET_START_S} s")

    def kill(self, name: str) -> None:
        """Kill the tracker ("tracker") or a server (its address), all of its process group."""
        proc = self.processes.pop(name)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=60)

    def stop(self) -> None:
        for name in list(self.processes):
            self.kill(name)
        self.listing.unlink(missing_ok=True)
        self.reaper.wait(timeout=60)


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now, with ten after it for TVM's range."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port + 10 < 65536:
            return port


# --- a local S3 server (moto) --------------------------------------------------------------
# moto's app behind one lock: its If-None-Match check (delta-rs's conditional PUT, which
# makes concurrent commits exclusive) is check-then-write, atomic only when serialized.
_MOTO = r"""
import os, sys, threading, time
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app

app = DomainDispatcherApplication(create_backend_app)
lock = threading.Lock()

def serialized(environ, start_response):
    with lock:
        result = app(environ, start_response)
        try:
            return [b"".join(result)]
        finally:
            if hasattr(result, "close"):
                result.close()

def orphaned(parent=os.getppid()):  # the test run that started it is gone (even SIGKILLed): so is the server
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)

threading.Thread(target=orphaned, daemon=True).start()
run_simple(sys.argv[1], int(sys.argv[2]), serialized, threaded=True, request_handler=MotoRequestHandler)
"""


def die_with_parent() -> None:
    """Linux: the server gets SIGKILL when the test process dies, however it dies."""
    import ctypes
    import ctypes.util

    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere the server's own watch of its parent ends it


def start_s3_server(port: int):
    """A moto server on 127.0.0.1:PORT in a process of its own, which ends when the process
    that started it ends, however it ends (a killed test run leaves no server)."""
    # credentials given, the metadata lookup off: nothing asks any address but 127.0.0.1
    env = {**os.environ, "MOTO_PORT": str(port), "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_EC2_METADATA_DISABLED": "true", "AWS_DEFAULT_REGION": "us-east-1", "NO_PROXY": "127.0.0.1"}
    return subprocess.Popen([sys.executable, "-c", _MOTO, "127.0.0.1", str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=die_with_parent)


def s3_env(endpoint: str) -> dict:
    """What a process needs to reach the local server, and nothing else."""
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_VIRTUAL_HOSTED_STYLE_REQUEST": "false", "AWS_EC2_METADATA_DISABLED": "true", "NO_PROXY": "127.0.0.1"}
