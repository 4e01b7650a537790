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
import signal
import socket
import subprocess
import sys
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


# --- hotdb run as a user runs it: in a process of its own, or in this one ---------------
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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]




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
