"""The command line as a user runs it: outputs, formats, errors and start-up imports."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from helpers import DATA, ROOT

from hotdb.cli.docs import generate, normalised
from hotdb.ingest import REGISTRY
from hotdb.ops import stats
from hotdb.resources import query_files
from hotdb.store.sqlfiles import read_view


def imported_modules(*args: str, cwd: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "hotdb", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_help_top_and_devices_never_import_tvm(tmp_path, vgg16):
    db = tmp_path / "x.duckdb"
    subprocess.run([sys.executable, "-m", "hotdb", "--db", str(db), "ingest", vgg16["table"], vgg16["relay"],
                    vgg16["tasks"]], check=True, capture_output=True, timeout=120)
    # `devices` speaks the tracker's protocol itself (hotdb/capture/tracker.py): nothing listens
    # on port 1, and the command that says so imports what one that lists devices does
    for args in (["--help"], ["--db", str(db), "top"], ["--db", str(db), "top", "--coverage", "90", "-f", "json"],
                 ["devices", "--rpc", "127.0.0.1:1"]):
        modules = imported_modules(*args, cwd=tmp_path)
        assert "hotdb.cli.app" in modules and ("hotdb.capture.tracker" in modules) == (args[0] == "devices")
        assert not {m for m in modules if m == "tvm" or m.startswith("tvm.") or m.startswith("tvm_ffi")}, args


def test_example_command_is_the_main_job(cli):
    first = cli("example")
    assert first.code == 0 and "top by task, coverage 90" in first.out and "conv2d_NCHWc.x86" in first.out
    again = cli("example")
    assert again.code == 0 and "nothing new" in again.err


def test_output_formats(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16", "--run", "base", "--tag", "host=ci")
    rows = cli("top", "--by", "node", "-f", "json").json()
    table = cli("top", "--by", "node").out
    text = cli("top", "--by", "node", "-f", "csv").out
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert len(parsed) == len(rows) == 26
    assert parsed[0]["node"] == rows[0]["node"] and float(parsed[0]["time_us"]) == pytest.approx(rows[0]["time_us"])
    assert rows[0]["node"][:40] in table
    ops = cli("top", "--by", "op", "-f", "json").json()
    assert ops[0]["op"] == "conv2d" and ops[0]["tunable"] is True
    assert sum(o["share_pct"] for o in ops) == pytest.approx(100.0)
    runs = cli("runs", "-f", "json").json()
    assert runs[0]["run"] == "base" and runs[0]["tags"] == {"host": "ci"} and runs[0]["nodes"] == 26
    assert cli("models", "-f", "json").json()[0]["tasks"] == 15


def test_sql_reads_tables_and_views(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    out = cli("sql", "SELECT method, count(*) AS n FROM kernel_matches GROUP BY 1 ORDER BY 1", "-f", "json").json()
    assert {r["method"] for r in out} >= {"shape", "call_count", "numbering+flops", "unmatched"}
    bad = cli("sql", "SELECT nope FROM nodes")
    assert bad.code == 1 and "SQL error" in bad.err and "Traceback" not in bad.err
    # DuckDB would draw its progress bar on stdout, inside the JSON or CSV, for a query over 2 s
    assert cli("sql", "SELECT current_setting('enable_progress_bar') AS bar", "-f", "json").json() == [{"bar": False}]


def test_usage_errors_exit_1_without_traceback(cli, vgg16, tmp_path):
    missing_db = cli("top")
    assert missing_db.code == 1 and "no database" in missing_db.err
    cli("ingest", vgg16["table"], "--model", "m")
    assert "no run labelled" in cli("top", "--run", "nope").err
    out_of_range = cli("top", "--coverage", "150")
    assert out_of_range.code == 2 and "--coverage" in out_of_range.err
    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello\n")
    result = cli("ingest", unknown)
    assert result.code == 1 and "format not recognised" in result.err and "Traceback" not in result.err
    two = cli("ingest", vgg16["table"], DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt",
              "--run", "only-one")
    assert two.code == 1 and "1 run labels for 2 profiles" in two.err


def test_unknown_options_are_usage_errors_not_tracebacks(tmp_path):
    # run as a process: the console entry point, not the test runner, turns usage errors into exit codes
    for args in (["top", "--bogus"], ["sql", "--x"], ["top", "--by"]):
        proc = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(tmp_path / "x.duckdb"), *args],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr and "Error: " in proc.stderr, proc.stderr


def test_forced_format_and_detection_listing(cli, vgg16):
    result = cli("ingest", vgg16["relay"], "--format", "debug-table", "--model", "m")
    assert result.code == 1 and "no table header" in result.err
    formats = cli("formats", "-f", "json").json()
    assert [f["format"] for f in formats] == [i.name for i in REGISTRY]
    assert {"debug-table", "profile-report", "autotvm-tasks", "ansor-log", "relay"} <= {f["format"] for f in formats}


def test_views_carry_their_documentation(cli, db, vgg16):
    cli("ingest", vgg16["table"], "--model", "m")
    con = duckdb.connect(str(db), read_only=True)
    stats.register(con)  # the functions _compare_items calls
    for path in query_files():
        view = read_view(path)
        assert view.description, path
        if view.kind == "macro":
            (params, comment), = con.execute("SELECT parameters, comment FROM duckdb_functions() WHERE function_name = ?",
                                             [view.name]).fetchall()
            assert list(params) == list(view.params) and comment, f"{path.name}: documented parameters differ"
            if view.table_macro:  # its columns, as a view's
                # a table name where one is taken (query_table), else NULL
                nulls = ", ".join("'kernel_matches_live'" if p == "matches" else "NULL" for p in params)
                columns = [r[0] for r in con.execute(f"DESCRIBE FROM {view.name}({nulls})").fetchall()]
                assert columns == list(view.columns), f"{path.name}: documented columns differ from the macro's"
            continue
        columns = con.execute("SELECT column_name, comment FROM duckdb_columns() WHERE table_name = ?",
                              [view.name]).fetchall()
        assert {c for c, _ in columns} == set(view.columns), f"{path.name}: documented columns differ from the view's"
        assert all(comment for _, comment in columns), path.name
        assert con.execute("SELECT comment FROM duckdb_views() WHERE view_name = ?", [view.name]).fetchall()[0][0]
    con.close()


def test_reference_docs_are_generated_from_what_they_describe():
    for page, text in generate().items():
        committed = (ROOT / "docs" / page).read_text()
        assert normalised(committed) == normalised(text), f"docs/{page} is stale: run python -m hotdb.cli.docs"


def test_non_editable_install_finds_its_sql(tmp_path, vgg16):
    """A wheel carries schema/ and queries/; an install from it ingests and ranks."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path / "dist", ROOT],
                   check=True, capture_output=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("hotdb-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
    py = venv / "bin" / "python"
    # hotdb's dependencies as this test runs with them, whether this is a virtual environment
    # or a system Python (`--system-site-packages` would see the base interpreter's only):
    # their folders on the new environment's path, after its own site-packages
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "outer.pth").write_text("\n".join(p for p in sys.path if p.endswith("-packages")) + "\n")
    subprocess.run([py, "-m", "pip", "install", "--no-deps", "--force-reinstall", wheel], check=True,
                   capture_output=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": ""}
    where = subprocess.run([py, "-c", "import hotdb.resources as r; print(r.sql_dir('schema'))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert "site-packages/hotdb/_sql/schema" in where.stdout
    hotdb = venv / "bin" / "hotdb"
    db = tmp_path / "x.duckdb"
    subprocess.run([hotdb, "--db", db, "ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"]], cwd=tmp_path,
                   env=env, check=True, capture_output=True, timeout=120)
    top = subprocess.run([hotdb, "--db", db, "top", "--coverage", "90"], cwd=tmp_path, env=env,
                         check=True, capture_output=True, text=True, timeout=120)
    assert "conv2d_NCHWc.x86" in top.stdout


def test_old_spellings_still_work(cli, vgg16, tmp_path):
    """ingest --format (now --input-format) keeps working; lake export (lake import before
    the Delta lake) now writes plain Parquet and says what it needs."""
    assert cli("ingest", vgg16["relay"], "--format", "relay", "--model", "m").code == 0
    old = cli("lake", "export", tmp_path / "lake")
    assert old.code == 2 and "--parquet" in old.err
