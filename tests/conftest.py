"""Fixtures: a fresh database, the bundled VGG-16, and the CLI run in-process (what tests share
besides fixtures is in helpers.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PASTES

from hotdb.examples import example_dir, example_files


def pytest_collection_modifyitems(config, items):
    import inspect
    import re

    def users(module, constant: str) -> set[str]:
        """The names of the module's functions that read the folder, directly or through another."""
        code = {}
        for name, f in vars(module).items():
            if inspect.isfunction(f) and f.__module__ == module.__name__:
                try:
                    code[name] = inspect.getsource(inspect.unwrap(f))
                except (OSError, TypeError):
                    continue
        found, names = set(), {constant}
        while names:
            pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
            names = {name for name, text in code.items() if name not in found and pattern.search(text)}
            found |= names
        return found

    for item in items:
        module = getattr(item, "module", None)
        for constant in getattr(module, "REAL_PASTE_FOLDERS", ()):
            folder = getattr(module, constant)
            if folder.is_dir() or item.function.__name__ not in users(module, constant):
                continue
            if PASTES.is_dir():  # the corpus is here but this folder is not: fail, never rot skipped
                item.user_properties.append(("missing", str(folder)))
            else:
                item.add_marker(pytest.mark.skip(reason=f"real pasted texts not found in {folder} "
                                                        "(set HOTDB_PASTES to the shared/real/pastes folder)"))


def pytest_runtest_setup(item):
    missing = [value for key, value in item.user_properties if key == "missing"]
    if missing:
        pytest.fail(f"{missing[0]} is missing from {PASTES}, which is there: the test reads it", pytrace=False)


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "test.duckdb"


@pytest.fixture
def vgg16() -> dict[str, Path]:
    files = example_files("vgg16")
    return {"table": files[0], "relay": files[1], "tasks": files[2], "log": files[3],
            "truth": example_dir("vgg16") / "vgg16.truth.json"}


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(capsys, db):
    """Run `hotdb --db <tmp> ARGS...` in this process; returns exit code, stdout, stderr."""
    from hotdb.cli.app import invoke

    def run(*args: str, use_db: bool = True) -> CliResult:
        argv = ["hotdb"] + (["--db", str(db)] if use_db else []) + [str(a) for a in args]
        old = sys.argv
        sys.argv = argv
        code = 0
        try:
            invoke()  # not main(), which ends a process that loaded deltalake with os._exit
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.argv = old
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """TVM's RPC tracker and two device servers of key `fleet.key` on 127.0.0.1, for the
    tests of a module (helpers.Fleet: stopped after them, or by its reaper if the tests
    are killed)."""
    from helpers import Fleet

    started = Fleet(tmp_path_factory.mktemp("fleet"))
    started.key = "hotdb-test"
    try:
        started.start_tracker()
        started.add_server(started.key)
        started.add_server(started.key)
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def s3_server():
    """A moto S3 server on 127.0.0.1 in a process of its own (helpers.start_s3_server: gone
    with this run, however it ends), with one bucket: the environment a child needs to
    reach it ("env") and the bucket's URI ("uri")."""
    import time
    import urllib.request
    import uuid

    from helpers import free_port, s3_env, start_s3_server

    pytest.importorskip("moto")
    boto3 = pytest.importorskip("boto3")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    proc = start_s3_server(port)
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy: 127.0.0.1 only
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"the moto server exited with {proc.returncode}"
            try:
                with direct.open(f"{endpoint}/moto-api/", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                assert time.monotonic() < deadline, f"the moto server at {endpoint} never answered"
                time.sleep(0.1)
        bucket = f"test-bucket-{uuid.uuid4().hex[:8]}"
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                     aws_secret_access_key="testing").create_bucket(Bucket=bucket)
        yield {"env": s3_env(endpoint), "endpoint": endpoint, "bucket": bucket, "uri": f"s3://{bucket}"}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
