"""`hotdb sql` streams its result: a result larger than memory is written a batch at a
time under --memory-limit (the process holds a batch, DuckDB what the limit lets it),
spills to a folder of its own, never beside the database, and JSON holds no NaN."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from helpers import here

MiB = 2**20


@pytest.fixture
def stored(tmp_path, vgg16):
    db = tmp_path / "r.duckdb"
    here("--db", db, "ingest", vgg16["table"], "--model", "m")
    return db


def peak_mib(*args) -> tuple[subprocess.CompletedProcess, int]:
    """hotdb in a process of its own, its output counted and dropped: (result, peak RSS in MiB)."""
    code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, "
            "stderr=subprocess.PIPE); n = len(p.stdout); "
            "print(p.returncode, n, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024); "
            "sys.stderr.write(p.stderr.decode())")
    done = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "hotdb", *map(str, args)],
                          capture_output=True, text=True, timeout=900)
    returncode, size, peak = map(int, done.stdout.split())
    return subprocess.CompletedProcess(args, returncode, str(size), done.stderr), peak


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_result_larger_than_the_limit_is_streamed_in_bounded_memory(stored, fmt):
    """300 MB of rows under a 100 MB limit: held whole it took ~3x the result (6.2 GB for
    2 GB, the hostile review); streamed, the process stays near its start."""
    query = "SELECT i, repeat('x', 1000) AS s FROM range(300000) AS t(i)"
    done, peak = peak_mib("--db", stored, "sql", query, "--memory-limit", "100MB", "-f", fmt)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 300 * 10**6  # every row written
    assert peak < 300, f"peak RSS {peak} MiB for a 300 MB result"


def test_a_table_shows_the_first_rows_and_counts_the_rest(stored):
    done = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(stored), "sql", "SELECT * FROM range(2500)"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert "1,500 more rows not shown" in done.stdout and " 999 " in done.stdout and " 1000 " not in done.stdout


def test_json_holds_no_nan_or_infinity(stored):
    for fmt in ("json", "jsonl"):
        done = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(stored), "sql",
                               "SELECT 1e308 * 10 AS big, 'nan'::DOUBLE AS nan, 2.5::DOUBLE AS fine", "-f", fmt],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "Infinity" not in done.stdout and "NaN" not in done.stdout
        record = json.loads(done.stdout)[0] if fmt == "json" else json.loads(done.stdout.splitlines()[0])
        assert record == {"big": None, "nan": None, "fine": 2.5}
        assert "2 values were not finite" in done.stderr


def test_a_spill_goes_to_a_folder_of_its_own_never_beside_the_database(stored):
    """DuckDB spills what exceeds the limit to `<database>.tmp` unless told otherwise (239 MB
    beside the user's file, the hostile review): the folder is watched while the query runs."""
    before = sorted(p.name for p in stored.parent.iterdir())
    query = "SELECT s FROM (SELECT md5(i::VARCHAR) || repeat('y', 200) AS s FROM range(1500000) AS t(i)) ORDER BY s"
    proc = subprocess.Popen([sys.executable, "-m", "hotdb", "--db", str(stored), "sql", query, "--memory-limit", "100MB",
                             "-f", "csv"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = set()
    try:
        while proc.poll() is None:
            seen.update(p.name for p in stored.parent.iterdir())
            time.sleep(0.05)
        err = proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode in (0, 1) and "Traceback" not in err, err
    assert sorted(seen | set(before)) == before, f"written beside the database: {seen - set(before)}"
    assert sorted(p.name for p in stored.parent.iterdir()) == before
