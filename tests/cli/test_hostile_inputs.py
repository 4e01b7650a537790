"""Hostile inputs: names that are markup or escape sequences, paths with quotes, bombs,
non-regular files, bad environment values, numbers that would disarm the gate, damaged
databases and unwritable outputs. Each is a clear error (exit 1, or 2 for usage) with no
traceback, leaves the database as it was, and stays within bounded memory."""

from __future__ import annotations

import gzip
import html
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import DATA, here, table_counts

MiB = 2**20


def run(*args, env=None, preexec=None, timeout=120) -> tuple[subprocess.CompletedProcess, int]:
    """hotdb as a user starts it: (result, peak resident memory in MiB)."""
    proc = subprocess.Popen([sys.executable, "-m", "hotdb", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
                            preexec_fn=preexec)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the largest child so far: an upper bound
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), usage.ru_maxrss // 1024


def one_line_error(result, code=1, *words):
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def gzip_bomb(path: Path, decompressed_bytes: int, chunk=b"\0") -> Path:
    """A .gz of many identical members: 16 MiB of `chunk` compressed once (a few KiB),
    repeated, so that an 8 GiB bomb takes milliseconds to make."""
    member = gzip.compress(chunk * (16 * MiB // len(chunk)), compresslevel=9)
    with path.open("wb") as out:
        for _ in range(decompressed_bytes // (16 * MiB)):
            out.write(member)
    return path


# --- names that are markup, escape sequences or mathtext -------------------------------

HOSTILE_NAMES = ["[/]", "[bold red]x", "\x1b]0;pwned\x07\x1b[2Jclear", "$\\notacommand{$", "a'b\"c;--"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_are_shown_as_text(cli, vgg16, tmp_path, name):
    assert cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", name, "--run", name).code == 0
    for args in (["top", "--run", name], ["matches", "--run", name], ["runs"], ["models"], ["tasks", "--model", name]):
        result = cli(*args)
        assert result.code == 0, (args, result.err)
        assert "\x1b" not in result.out and "\x07" not in result.out, args
    shown = name.replace("\x1b", "\\x1b").replace("\x07", "\\x07")  # as text, not acted on
    assert shown[:12] in cli("runs").out
    assert cli("runs", "-f", "json").json()[0]["run"] == name  # data formats keep the name as it is
    page, notes = tmp_path / "report.html", tmp_path / "report.md"
    result = cli("report", name, "--html", page, "--md", notes)
    assert result.code == 0, result.err
    assert html.escape(shown) in page.read_text() and "\x1b" not in page.read_text() + notes.read_text()


def test_all_zero_profile_report(cli, tmp_path):
    table = tmp_path / "zero.txt"
    table.write_text("Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs\n"
                     "---------  ---  --------  -------  -----  ------  -------\n"
                     "fused_nn_relu  fused_nn_relu  0.0  0.0  (1, 8)  1  1\n"
                     "fused_add  fused_add  0.0  0.0  (1, 8)  2  1\n"
                     "Total_time  -  0.0  -  -  -  -\n")
    ingested = cli("ingest", table, "--model", "zero", "--run", "z")
    if ingested.code == 0:
        result = cli("report", "--html", tmp_path / "r.html")
        assert result.code in (0, 1) and "Traceback" not in result.err
    else:
        assert ingested.code == 1 and "Traceback" not in ingested.err


# --- paths and lake names ---------------------------------------------------------------

def test_lake_path_with_quote_and_names_that_are_paths(tmp_path, vgg16):
    lake = tmp_path / "it's a lake'; DROP TABLE x; --"
    for model in ("m'); COPY (SELECT 1) TO '/tmp/pwned.csv", "..", ".", "x" * 300, "a/../../b"):
        here("--lake", lake, "ingest", vgg16["table"], "--model", model, "--run", "r")  # in this process: exit 0
    runs = json.loads(here("--lake", lake, "runs", "-f", "json").stdout)
    assert len(runs) == 5 and {r["model"] for r in runs} >= {"..", ".", "x" * 300}
    assert not Path("/tmp/pwned.csv").exists()
    inside = {p.resolve() for p in tmp_path.rglob("*")}
    assert all(str(p).startswith(str(lake.resolve())) or p == lake.resolve() for p in inside)
    assert all(len(p.name.encode()) <= 255 for p in inside)
    here("lake", "compact", lake)
    assert len(json.loads(here("--lake", lake, "runs", "-f", "json").stdout)) == 5
    # delta-rs reads a local path as a URI ("a%20b" is "a b"): such a folder is refused, not misread
    refused = subprocess.run([sys.executable, "-m", "hotdb", "--lake", str(tmp_path / "a%20b"), "runs"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "'%'" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


# --- bounded memory: bombs, devices, FIFOs, long lines ------------------------------------

@pytest.mark.parametrize("size_gib", [1, 8])
def test_gzip_bomb_is_refused_in_bounded_memory(tmp_path, size_gib):
    bomb = gzip_bomb(tmp_path / "bomb.log.gz", size_gib * 2**30)
    result, peak_mib = run("--db", tmp_path / "db.duckdb", "ingest", bomb)
    one_line_error(result, 1, "HOTDB_MAX_READ_BYTES", "bomb.log.gz")
    assert peak_mib < 1024, peak_mib
    assert not (tmp_path / "db.duckdb").exists() or table_counts(tmp_path / "db.duckdb").get("runs", 0) == 0


def test_one_very_long_line_is_refused_in_bounded_memory(tmp_path):
    log = gzip_bomb(tmp_path / "autotvm.log.gz", 48 * MiB, chunk=b'{"input": ["llvm", ')
    result, peak_mib = run("--db", tmp_path / "db.duckdb", "ingest", log, "--format", "autotvm-tasks")
    one_line_error(result, 1, "HOTDB_MAX_LINE_BYTES", "autotvm.log.gz:1:")
    assert peak_mib < 1024, peak_mib


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_non_regular_files_are_refused_at_once(tmp_path, special):
    if special == "fifo":
        special = tmp_path / "pipe"
        os.mkfifo(special)
    result, _ = run("--db", tmp_path / "db.duckdb", "ingest", special, timeout=30)
    one_line_error(result, 1, "regular files and folders only")


def test_raising_a_limit_is_the_remedy_it_names(tmp_path, vgg16):
    result, _ = run("--db", tmp_path / "db.duckdb", "ingest", vgg16["relay"], env={"HOTDB_MAX_READ_BYTES": "1MiB",
                                                                                   "HOTDB_MAX_LINE_BYTES": "1KiB"})
    if vgg16["relay"].stat().st_size > MiB:
        one_line_error(result, 1, "HOTDB_MAX_READ_BYTES")
    long_line = max(len(line) for line in vgg16["relay"].read_bytes().splitlines())
    if long_line > 1024:
        one_line_error(result, 1, "HOTDB_MAX_LINE_BYTES")
    else:
        one_line_error(result, 0)


@pytest.mark.parametrize("variable,value", [("HOTDB_LOCK_TIMEOUT", "abc"), ("HOTDB_LOCK_TIMEOUT", "-1"),
                                            ("HOTDB_STREAM_BYTES", "abc"), ("HOTDB_MEMORY_LIMIT", "1MB"),
                                            ("HOTDB_MAX_READ_BYTES", "lots"), ("HOTDB_MAX_LINE_BYTES", "nan"),
                                            ("HOTDB_MAX_FILES", "0"), ("HOTDB_MAX_FILES", "many")])
def test_bad_environment_values_are_one_line_errors(tmp_path, vgg16, variable, value):
    result, _ = run("--db", tmp_path / "db.duckdb", "ingest", vgg16["table"], env={variable: value})
    assert result.returncode in (1, 2) and "Traceback" not in result.stderr
    assert variable in result.stderr and len(result.stderr.strip().splitlines()) <= 2, result.stderr


# --- numbers that would disarm a gate -----------------------------------------------------

@pytest.mark.parametrize("args", [
    ["export", "--coverage", "nan"], ["export", "--coverage", "-5"], ["export", "--coverage", "0"],
    ["export", "--coverage", "1000"], ["top", "--coverage", "inf"], ["compare", "a", "b", "--threshold", "nan"],
    ["compare", "a", "b", "--threshold", "-5"], ["compare", "a", "b", "--fail-on-regression", "nan"],
    ["top", "--all-models", "--weight", "m=nan"], ["top", "--all-models", "--weight", "m=inf"],
    ["top", "--all-models", "--weight", "m=0"], ["top", "--all-models", "--weight", "m=-1"]])
def test_numbers_out_of_range_are_usage_errors(cli, vgg16, args):
    cli("ingest", vgg16["table"], "--model", "m", "--run", "a")
    result = cli(*args)
    assert result.code == 2, (args, result.code, result.err)
    assert "Traceback" not in result.err


# --- outputs that cannot be written, disks that fill, damaged databases ------------------

def test_unwritable_outputs_are_one_line_errors(tmp_path, vgg16):
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        for args in (["export", "--to", "json", "-o", tmp_path / "missing" / "x.json"],
                     ["export", "--to", "json", "-o", tmp_path], ["report", "--html", tmp_path / "missing" / "r.html"],
                     ["report", "--md", tmp_path], ["export", "--to", "json", "-o", locked / "x.json"]):
            result, _ = run("--db", db, *args)
            if os.geteuid() == 0 and locked in Path(args[-1]).parents:
                continue  # root writes anywhere
            one_line_error(result, 1)
            assert str(args[-1].name) in result.stderr or "directory" in result.stderr, result.stderr
    finally:
        locked.chmod(0o700)


def _small_files(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_is_a_one_line_error_and_loses_nothing(tmp_path, vgg16):
    """RLIMIT_FSIZE makes every write past 8 KiB fail (EFBIG), as a full disk would."""
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m", "--run", "first")
    before = table_counts(db)
    result, _ = run("--db", db, "ingest", DATA / "debug-dump"
                    / "vgg16" / "tvmdbg_vgg16", "--model", "m", "--run", "second", preexec=_small_files(8 * 1024))
    if result.returncode == 0:
        pytest.skip("the ingest fitted in the file's current size")
    one_line_error(result, 1)
    assert "rollback" not in result.stderr and table_counts(db) == before
    out, _ = run("--db", db, "export", "--to", "json", "-o", tmp_path / "tasks.json", preexec=_small_files(10))
    one_line_error(out, 1, "tasks.json")
    assert not (tmp_path / "tasks.json").exists() and [p.name for p in tmp_path.glob(".*partial")] == []


@pytest.mark.parametrize("damage", ["half", "header", "garbage"])
def test_damaged_database_files_are_one_line_errors(tmp_path, vgg16, damage):
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    data = db.read_bytes()
    if damage == "half":
        db.write_bytes(data[: len(data) // 2])
    elif damage == "header":
        db.write_bytes(data[:4096] + b"\xff" * 8192 + data[4096 + 8192:])
    else:
        db.write_bytes(os.urandom(len(data)))
    for args in (["top"], ["runs"], ["matches"], ["sql", "SELECT count(*) FROM node_calls"],
                 ["ingest", vgg16["table"], "--model", "m", "--run", "again"]):
        result, _ = run("--db", db, *args)
        assert result.returncode in (0, 1), (args, result.stderr)
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) <= 3, result.stderr


# --- sql is read-only ----------------------------------------------------------------------

def test_sql_can_neither_write_nor_attach(tmp_path, vgg16):
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    before = table_counts(db)
    other = tmp_path / "other.duckdb"
    target = tmp_path / "written.csv"
    for statement in (f"COPY (SELECT 1) TO '{target}'", f"COPY node_calls TO '{target}'",
                      f"EXPORT DATABASE '{tmp_path / 'exported'}'", f"ATTACH '{other}' AS o",
                      f"ATTACH '{db}' AS again (READ_WRITE)", "DELETE FROM node_calls", "DROP VIEW kernel_matches",
                      "INSTALL sqlite", "LOAD sqlite", "SET enable_external_access = true",
                      f"SELECT * FROM read_csv('{vgg16['table']}')", "SELECT 1; DELETE FROM runs",
                      "CREATE TABLE t AS SELECT 1", "PRAGMA enable_external_access",
                      f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{target}'"):
        result, _ = run("--db", db, "sql", statement)
        one_line_error(result, 1)
    assert not target.exists() and not other.exists() and not (tmp_path / "exported").exists()
    assert table_counts(db) == before
    empty, _ = run("--db", db, "sql", "")
    one_line_error(empty, 2)


def test_every_documented_view_reads_through_sql(tmp_path, vgg16):
    """The lockdown leaves reading alone: each public view, from a file and from a lake."""
    from hotdb.resources import query_files
    from hotdb.store.sqlfiles import read_view

    db, lake = tmp_path / "db.duckdb", tmp_path / "lake"
    for where in (["--db", db], ["--lake", lake]):
        run(*where, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    views = [v.name for v in map(read_view, query_files()) if v.kind == "view" and not v.private]
    assert len(views) > 10
    union = " UNION ALL ".join(f"SELECT '{v}' AS view, count(*) AS n FROM {v}" for v in views)  # names from our own files
    for where in (["--db", db], ["--lake", lake]):
        result, _ = run(*where, "sql", union, "-f", "json")
        one_line_error(result, 0)
        counts = {r["view"]: r["n"] for r in json.loads(result.stdout)}
        assert set(counts) == set(views) and counts["kernel_matches"] > 0


def test_duckdb_out_of_memory_is_a_one_line_error_naming_the_limit(tmp_path, vgg16):
    """A table of many distinct kernels under the smallest HOTDB_MEMORY_LIMIT: DuckDB runs out
    of memory re-matching them; the user gets the limit to raise, and nothing is stored."""
    rows = "".join(f"fused_nn_conv2d_add_relu_{i}  fused_nn_conv2d_add_relu_{i}  {100 + i % 997}.5  0.001  "
                   f"(1, 64, 56, 56)  3  1\n" for i in range(100_000))
    table = tmp_path / "many_kernels.txt"
    table.write_text("Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs\n"
                     "---------  ---  --------  -------  -----  ------  -------\n" + rows)
    db = tmp_path / "db.duckdb"
    assert run("--db", db, "ingest", vgg16["table"], "--model", "before")[0].returncode == 0
    before = table_counts(db)
    result, _ = run("--db", db, "ingest", table, "--model", "m", env={"HOTDB_MEMORY_LIMIT": "64MiB"})
    one_line_error(result, 1, "DuckDB ran out of memory under HOTDB_MEMORY_LIMIT=64MiB")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert table_counts(db) == before


# --- what a hostile review found: streams, special outputs, terminals that break messages ----

def test_a_file_that_would_block_is_refused_not_waited_for(tmp_path):
    if not os.access("/proc/kmsg", os.R_OK):
        pytest.skip("/proc/kmsg is not readable here (it needs root)")
    result, _ = run("--db", tmp_path / "db.duckdb", "ingest", "/proc/kmsg", timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "would wait" in result.stderr or "format not recognised" in result.stderr  # what was there, if any


def test_a_sqlite_file_as_database_is_named_as_one(tmp_path):
    import sqlite3

    path = tmp_path / "x.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (a)")
    result, _ = run("--db", path, "runs")
    one_line_error(result, 1, "it is a SQLite database")
    assert len(result.stderr.strip().splitlines()) == 1 and "INSTALL" not in result.stderr


def test_outputs_onto_a_fifo_a_device_or_a_link_are_written_through(tmp_path, vgg16):
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        result, _ = run("--db", db, "export", "--to", "json", "--coverage", "90", "-o", fifo)
        assert result.returncode == 0, result.stderr
        assert json.loads(reader.communicate(timeout=60)[0]) and fifo.is_fifo()  # still the FIFO, read through
    finally:
        reader.kill()
    assert run("--db", db, "export", "--to", "json", "--coverage", "90", "-o", "/dev/null")[0].returncode == 0
    assert Path("/dev/null").is_char_device()
    target, link = tmp_path / "tasks.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    refused = run("--db", db, "export", "--to", "json", "--coverage", "90", "-o", link)[0]  # "old" is not hotdb's
    assert refused.returncode == 1 and "--force" in refused.stderr and target.read_text() == "old"
    assert run("--db", db, "export", "--to", "json", "--coverage", "90", "-o", link, "--force")[0].returncode == 0
    assert link.is_symlink() and json.loads(target.read_text())


@pytest.mark.parametrize("env", [{"COLUMNS": "0"}, {"COLUMNS": "1"}, {"PYTHONIOENCODING": "ascii"}])
def test_terminals_that_would_hide_or_break_a_message(tmp_path, vgg16, env):
    db = tmp_path / "db.duckdb"
    made, _ = run("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "café",
                  "--run", "café-1", env=env)
    assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr
    shown, _ = run("--db", db, "runs", env=env)
    assert shown.returncode == 0 and ("café-1" in shown.stdout or "caf\\xe9-1" in shown.stdout), shown.stdout
    missing, _ = run("--db", db, "top", "--run", "nope-é", env=env)
    one_line_error(missing, 1, "error:", "nope-")


def test_names_cannot_split_a_row_or_turn_text_around(cli, vgg16):
    name = "a\nb\u2028c\u202ed"
    assert cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", name, "--run", name).code == 0
    out = cli("runs").out
    assert "a\\x0ab\\u2028c\\u202ed" in out and "\u2028" not in out and "\u202e" not in out
    assert len([line for line in out.splitlines() if "a\\x0ab" in line]) == 1
    assert cli("runs", "-f", "json").json()[0]["run"] == name  # the data keeps it as it is
    missing = cli("top", "--run", "x\ny\u202e")
    assert missing.code == 1 and len(missing.err.strip().splitlines()) == 1 and "\u202e" not in missing.err


def test_a_runaway_query_is_stopped_at_the_time_limit(tmp_path, vgg16):
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], "--model", "m")
    result, _ = run("--db", db, "sql", "SELECT count(*) FROM range(100000000000) AS a, range(1000) AS b",
                    env={"HOTDB_SQL_TIMEOUT": "1"}, timeout=120)
    one_line_error(result, 1, "ran past 1 s", "HOTDB_SQL_TIMEOUT")


def test_a_huge_sparse_report_is_refused_at_once(tmp_path):
    """100 GB of holes behind a valid header: refused by its size, not scanned for minutes."""
    path = tmp_path / "report.csv"
    with path.open("wb") as out:
        out.write(b"Name,Duration (us),Count,Device\nfused_dense,1.0,1,cpu0\n")
        out.truncate(100 * 10**9)
    result, _ = run("--db", tmp_path / "db.duckdb", "ingest", path, timeout=60)
    one_line_error(result, 1, "HOTDB_MAX_STREAM_BYTES", "report.csv")


def test_a_folder_of_many_files_is_refused_before_any_is_read(tmp_path):
    """20,000 tiny logs ran for minutes and grew past 1.5 GB, parsed one by one; they are
    counted (up to the limit only) and refused at once."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for i in range(20_000):
        os.close(os.open(folder / f"tuning_{i}.log", os.O_CREAT | os.O_WRONLY))
    result, peak_mib = run("--db", tmp_path / "db.duckdb", "ingest", folder, timeout=60)
    one_line_error(result, 1, "logs", "more than 2,000 files", "HOTDB_MAX_FILES")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert peak_mib < 1024, peak_mib
    assert not (tmp_path / "db.duckdb").exists()


def test_raising_the_file_limit_lets_a_larger_folder_through(tmp_path, vgg16):
    folder = tmp_path / "build"
    folder.mkdir()
    for key in ("table", "relay", "tasks", "log"):
        (folder / vgg16[key].name).write_bytes(vgg16[key].read_bytes())
    db = tmp_path / "db.duckdb"
    refused, _ = run("--db", db, "ingest", folder, "--model", "m", env={"HOTDB_MAX_FILES": "3"})
    one_line_error(refused, 1, "more than 3 files", "HOTDB_MAX_FILES")
    assert not db.exists()
    one_line_error(run("--db", db, "ingest", folder, "--model", "m", env={"HOTDB_MAX_FILES": "10"})[0], 0)
    assert table_counts(db)["runs"] == 1
    dump = DATA / "debug-dump" / "vgg16" / "tvmdbg_vgg16"  # a dump folder is one input
    one_line_error(run("--db", db, "ingest", dump, "--model", "d", env={"HOTDB_MAX_FILES": "1"})[0], 0)


def test_sql_limits_are_raised_for_one_query_by_their_options(tmp_path, vgg16):
    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], "--model", "m")
    hungry = "SELECT length(string_agg(i::varchar, ',')) AS n FROM range(5000000) AS t(i)"  # a 39 MB string
    result, _ = run("--db", db, "sql", hungry, "--memory-limit", "64MiB")
    one_line_error(result, 1, "more than the 64 MiB of memory", "HOTDB_MEMORY_LIMIT", "--memory-limit")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    result, _ = run("--db", db, "sql", hungry, "--memory-limit", "1GB", "-f", "json")
    one_line_error(result, 0)
    assert json.loads(result.stdout) == [{"n": 38_888_889}]
    result, _ = run("--db", db, "sql", "SELECT count(*) FROM range(100000000000) AS a, range(1000) AS b",
                    "--timeout", "0.5", timeout=120)
    one_line_error(result, 1, "ran past 0.5 s", "--timeout")


@pytest.mark.parametrize("args", [["--timeout", "-1"], ["--timeout", "nan"], ["--timeout", "0"],
                                  ["--memory-limit", "lots"], ["--memory-limit", "1MB"]])
def test_bad_sql_limits_are_usage_errors_naming_the_option(tmp_path, args):
    result, _ = run("--db", tmp_path / "db.duckdb", "sql", "SELECT 1", *args)
    one_line_error(result, 2, args[0])
    assert not (tmp_path / "db.duckdb").exists()


def test_the_api_takes_the_sql_limits_the_options_set(tmp_path, vgg16):
    from hotdb import Hotdb
    from hotdb.errors import BadArgument, QueryLimit

    db = tmp_path / "db.duckdb"
    run("--db", db, "ingest", vgg16["table"], "--model", "m")
    api = Hotdb(db)
    assert api.sql("SELECT 1 AS one", timeout_s=5, memory_limit="128MiB").records() == [{"one": 1}]
    with pytest.raises(QueryLimit) as stopped:
        api.sql("SELECT length(string_agg(i::varchar, ',')) FROM range(5000000) AS t(i)", memory_limit=64 * MiB)
    assert stopped.value.limit == "memory_limit" and "HOTDB_MEMORY_LIMIT" in str(stopped.value)
    for bad in ({"timeout_s": 0}, {"timeout_s": float("inf")}, {"memory_limit": "lots"}, {"memory_limit": 1024}):
        with pytest.raises(BadArgument):
            api.sql("SELECT 1", **bad)


# --- the lake, as the hostile review attacked it (docs/lake.md) ------------------------------
def _profiles(tmp_path, vgg16, labels) -> list:
    """Distinct profiles: the example's table under a comment of its own."""
    out = []
    for label in labels:
        path = tmp_path / f"{label}.txt"
        path.write_text(Path(vgg16["table"]).read_text() + f"\n# {label}\n")
        out.append(path)
    return out


def _lake_runs(lake) -> list[str]:
    return sorted(r["run"] for r in json.loads(here("--lake", lake, "runs", "-f", "json").stdout))


def test_two_compactions_a_writer_and_a_reader_at_once_list_every_run_once(tmp_path, vgg16):
    from helpers import start

    lake = tmp_path / "lake"
    first, second, third, late = _profiles(tmp_path, vgg16, ["r1", "r2", "r3", "late"])
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], first, "--model", "m", "--run", "r1")
    for path, label in ((second, "r2"), (third, "r3")):
        here("--lake", lake, "ingest", path, "--model", "m", "--run", label)
    procs = [start("lake", "compact", lake), start("lake", "compact", lake),
             start("--lake", lake, "ingest", late, "--model", "m", "--run", "late")]
    seen = []
    while any(p.poll() is None for p in procs):  # a reader beside them: never fewer than the three
        seen.append(len(json.loads(here("--lake", lake, "runs", "-f", "json").stdout)))
    outputs = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    assert not any("Traceback" in err for _, err in outputs)
    assert seen and min(seen) >= 3
    assert _lake_runs(lake) == ["late", "r1", "r2", "r3"]
    calls = json.loads(here("--lake", lake, "sql", "SELECT count(*) AS n FROM node_calls", "-f", "json").stdout)
    assert calls == [{"n": 4 * 26}]  # no run's nodes twice
    here("lake", "compact", lake)  # later compactions and ingests go on
    here("--lake", lake, "ingest", vgg16["table"], "--model", "m")
    assert len(_lake_runs(lake)) == 5


def test_lake_import_twice_imports_nothing_the_second_time(tmp_path, vgg16):
    database, lake = tmp_path / "db.duckdb", tmp_path / "lake"
    here("--db", database, "ingest", vgg16["table"], "--model", "m")
    assert "imported 1 model, 1 run" in here("--db", database, "lake", "import", lake).stderr
    again = here("--db", database, "lake", "import", lake).stderr
    assert "imported 0 models, 0 runs" in again and "1 ingest skipped: the lake holds its files" in again
    assert _lake_runs(lake) == ["m-1"]


def test_a_symlink_in_the_lake_leads_no_write_or_delete_outside(tmp_path, vgg16, monkeypatch):
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    lake = tmp_path / "lake"
    lake.mkdir()
    for name in ("_staging", "_claims"):  # the folders the old lake deleted in
        (lake / name).symlink_to(outside, target_is_directory=True)
    here("--lake", lake, "ingest", vgg16["table"], "--model", "m")
    monkeypatch.setenv("HOTDB_LAKE_RETENTION", "0")
    here("lake", "compact", lake)
    assert [p.name for p in outside.iterdir()] == ["keep.txt"] and (outside / "keep.txt").read_text() == "mine"
    assert _lake_runs(lake) == ["m-1"]


def test_a_run_name_equal_to_another_names_shortened_folder_stays_visible(tmp_path, vgg16):
    import hashlib

    lake = tmp_path / "lake"
    long = "r" * 300  # the old lake named its folder by the start of the name and a hash
    short = long[:160] + "~" + hashlib.sha256(long.encode()).hexdigest()[:32]
    one, two = _profiles(tmp_path, vgg16, ["one", "two"])
    here("--lake", lake, "ingest", one, "--model", "m", "--run", long)
    here("--lake", lake, "ingest", two, "--model", "m", "--run", short)
    here("lake", "compact", lake)
    assert _lake_runs(lake) == sorted([long, short])


def test_sql_cannot_write_into_the_lake(tmp_path, vgg16):
    import hashlib

    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["table"], "--model", "m")
    files = sorted(p for p in lake.rglob("*") if p.is_file())
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    target = next(p for p in files if p.suffix == ".parquet" and p.parent.name == "runs")
    for statement in (f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{target}'",
                      f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{lake}/runs/part-new.parquet'"):
        proc = subprocess.run([sys.executable, "-m", "hotdb", "--lake", str(lake), "sql", statement],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(p for p in lake.rglob("*") if p.is_file())} == before


def test_a_report_cut_while_it_is_streamed_is_a_one_line_error(tmp_path):
    """DuckDB scans a streamed report twice: a file cut between the scans (a copy still
    being written, a disk filling up) fails in the second, said in one line."""
    report = tmp_path / "report.csv"
    report.write_bytes((DATA / "profile-report" / "resnet50_nhwc.report.csv").read_bytes())
    env = {**os.environ, "HOTDB_STREAM_BYTES": "1000", "HOTDB_FAILPOINT": "report-scanned", "HOTDB_FAILPOINT_SLEEP": "3"}
    proc = subprocess.Popen([sys.executable, "-m", "hotdb", "--db", str(tmp_path / "db.duckdb"), "ingest", str(report),
                             "--model", "m"], stderr=subprocess.PIPE, text=True, env=env)
    for line in proc.stderr:
        if "failpoint report-scanned" in line:
            break
    with report.open("r+b") as f:  # cut in the middle of a row
        f.truncate(report.stat().st_size // 2)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "report.csv" in err, err


def test_reads_work_on_a_read_only_disk(tmp_path, vgg16):
    """The file and its folder made immutable (chattr +i holds even for root, unlike modes):
    reads of a database another hotdb's views were stored in still work, in memory."""
    import shutil

    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "db.duckdb"
    here("--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m")
    import duckdb

    con = duckdb.connect(str(db))
    con.execute("UPDATE hotdb_meta SET value = 'another' WHERE key = 'views_sha256'")  # as another hotdb left it
    con.execute("DROP VIEW _hotdb_stamp")  # as one that writes no stamp drops it (store/connection.py)
    con.close()
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(db), str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available on this file system")
    try:
        for args in (["runs"], ["top"], ["sql", "SELECT count(*) FROM nodes"]):
            proc = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(db), *args], capture_output=True,
                                  text=True, timeout=120)
            assert proc.returncode == 0, (args, proc.stderr)
    finally:
        subprocess.run([chattr, "-i", str(db), str(folder)], capture_output=True)
