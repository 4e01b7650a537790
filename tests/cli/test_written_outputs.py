"""What `report` and `export -o` write never destroys an input: the database, a lake, or a
file hotdb did not write is refused in one line (unless --force); a file hotdb wrote
before is replaced whole."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import here, table_counts


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hotdb", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=os.environ)


@pytest.fixture
def stored(tmp_path, vgg16):
    db = tmp_path / "r.duckdb"
    here("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    return db


@pytest.mark.parametrize("command", [["report", "--html"], ["report", "--md"], ["export", "--to", "json", "-o"],
                                     ["export", "--to", "csv", "-o"]])
def test_an_output_path_that_is_the_database_is_refused(stored, command):
    before, data = table_counts(stored), stored.read_bytes()
    done = run("--db", stored, *command, stored)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "database" in done.stderr, done.stderr
    assert stored.read_bytes() == data and table_counts(stored) == before
    forced = run("--db", stored, *command, stored, "--force")  # not even with --force: it is the input
    assert forced.returncode == 1 and stored.read_bytes() == data


def test_an_output_path_inside_or_equal_to_a_lake_is_refused(tmp_path, stored):
    lake = tmp_path / "lake"
    here("--db", stored, "lake", "import", lake)
    for target in (lake, lake / "_commits", lake / "runs" / "_delta_log" / "00000000000000000000.json"):
        done = run("--lake", lake, "report", "--html", target)
        assert done.returncode == 1 and "lake" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "r.duckdb" not in run("--lake", lake, "runs").stderr


def test_a_file_hotdb_did_not_write_needs_force_and_its_own_are_replaced(tmp_path, stored):
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n")
    refused = run("--db", stored, "report", "--md", notes)
    assert refused.returncode == 1 and "--force" in refused.stderr and notes.read_text() == "my notes\n", refused.stderr
    assert run("--db", stored, "report", "--md", notes, "--force").returncode == 0
    assert notes.read_text() != "my notes\n"
    page = tmp_path / "page.html"
    assert run("--db", stored, "report", "--html", page).returncode == 0
    again = run("--db", stored, "report", "--html", page)  # a report hotdb wrote: replaced without --force
    assert again.returncode == 0, again.stderr
    tasks = tmp_path / "tasks.json"
    assert run("--db", stored, "export", "--to", "json", "-o", tasks).returncode == 0
    assert run("--db", stored, "export", "--to", "json", "-o", tasks).returncode == 0, "its own export is replaced"
    log = tmp_path / "tasks.txt"
    log.write_text("a task list of my own\n")
    refused = run("--db", stored, "export", "--to", "autotvm-tasks", "-o", log)
    assert refused.returncode == 1 and "--force" in refused.stderr and log.read_text() == "a task list of my own\n"
