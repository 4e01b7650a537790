"""A lake on S3 (a moto server on 127.0.0.1, tests/conftest.py) where things go wrong: no
credentials, a bucket deleted while a writer lands, a version vacuumed; each a line, never
a traceback, and nothing asked of any other address. And the server itself goes with
the run that started it, however that run ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest


def hotdb(*args, env: dict, failpoint: str | None = None) -> subprocess.Popen:
    extra = {"HOTDB_FAILPOINT": failpoint, "HOTDB_FAILPOINT_SLEEP": "8"} if failpoint else {}
    return subprocess.Popen([sys.executable, "-m", "hotdb", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**env, **extra})


def finished(proc: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    return proc.returncode, out, err


def one_line(code: int, err: str) -> None:
    assert code == 1 and "Traceback" not in err and "panicked" not in err, err
    assert len(err.strip().splitlines()) == 1, err


def clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HOTDB_LAKE", "HOTDB_FAILPOINT"))}
    return {**env, **extra}


def test_no_credentials_is_one_line_and_asks_no_one(vgg16):
    # nothing listens there: a lookup would hang or fail; no profile files either
    env = clean_env(AWS_ENDPOINT_URL="http://127.0.0.1:9", AWS_SHARED_CREDENTIALS_FILE="/nonexistent/credentials",
                    AWS_CONFIG_FILE="/nonexistent/config")
    code, _, err = finished(hotdb("--lake", "s3://bucket/lake", "ingest", vgg16["table"], "--model", "m", env=env))
    one_line(code, err)
    assert "AWS_ACCESS_KEY_ID" in err and "AWS_EC2_METADATA_DISABLED" in err


def test_a_bucket_deleted_while_a_writer_lands_is_one_line(s3_server, vgg16):
    import boto3

    bucket = f"gone-{uuid.uuid4().hex[:8]}"
    s3 = boto3.client("s3", endpoint_url=s3_server["endpoint"], region_name="us-east-1", aws_access_key_id="testing",
                      aws_secret_access_key="testing")
    s3.create_bucket(Bucket=bucket)
    env = clean_env(**s3_server["env"])
    lake = f"s3://{bucket}/lake"
    assert finished(hotdb("--lake", lake, "ingest", vgg16["relay"], "--model", "m", env=env))[0] == 0
    writer = hotdb("--lake", lake, "ingest", vgg16["table"], "--model", "m", env=env, failpoint="lake-written")
    for line in writer.stderr:
        if "failpoint lake-written" in line:
            break
    for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
        s3.delete_object(Bucket=bucket, Key=item["Key"])
    s3.delete_bucket(Bucket=bucket)
    code, _, err = finished(writer)
    one_line(code, err)
    again = finished(hotdb("--lake", lake, "runs", env=env))
    assert again[0] == 1 and "Traceback" not in again[2] and len(again[2].strip().splitlines()) == 1, again[2]


def test_a_vacuumed_version_on_s3_is_one_line(s3_server, vgg16):
    env = clean_env(**s3_server["env"])
    lake = f"{s3_server['uri']}/vacuumed-{uuid.uuid4().hex[:8]}"
    assert finished(hotdb("--lake", lake, "ingest", vgg16["relay"], "--model", "m", env=env))[0] == 0
    assert finished(hotdb("--lake", lake, "ingest", vgg16["table"], "--model", "m", env=env))[0] == 0
    assert finished(hotdb("--lake", lake, "ingest", vgg16["tasks"], "--model", "m", env=env))[0] == 0
    compacted = finished(hotdb("lake", "compact", lake, env={**env, "HOTDB_LAKE_RETENTION": "0"}))
    assert compacted[0] == 0, compacted[2]
    code, _, err = finished(hotdb("--lake", lake, "--as-of", "1", "runs", env=env))
    one_line(code, err)
    assert "vacuumed" in err


def test_a_killed_test_run_leaves_no_server():
    """The process that started the server is SIGKILLed (as a killed pytest is): the server ends too."""
    pytest.importorskip("moto")
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]); "
                              "from helpers import free_port, start_s3_server; "
                              "print(start_s3_server(free_port()).pid, flush=True); time.sleep(600)",
                              os.path.dirname(os.path.dirname(__file__))], stdout=subprocess.PIPE, text=True)
    server = int(child.stdout.readline())
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            return
        try:  # reaped by init, or left a zombie of ours? either way gone once it is not running
            with open(f"/proc/{server}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.2)
    os.kill(server, signal.SIGKILL)
    raise AssertionError("the moto server outlived the run that started it")
