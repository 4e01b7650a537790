"""The store: migrations from old databases, newer ones refused, a locked file waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone
from pathlib import Path

import duckdb
from helpers import DATA

from hotdb.resources import schema_files
from hotdb.store.connection import latest_schema_version


def test_database_of_the_first_migration_is_migrated_with_its_data(cli, db, vgg16):
    first = schema_files()[0]
    con = duckdb.connect(str(db))
    con.execute(first.read_text())
    con.execute("INSERT INTO schema_migrations VALUES (1, ?, ?)", [first.stem, datetime.now(timezone.utc)])
    con.execute("INSERT INTO models VALUES (1, 'old', now())")
    con.execute("INSERT INTO ingests VALUES (1, 1, now(), '0.0.1')")
    con.execute("INSERT INTO sources VALUES (1, 1, 1, 'old.txt', 'debug-table', 'profile', 'abc', 10, 1, [])")
    # a target as hotdb 0.2 stored a live capture's: json.dumps(export(), default=str)
    con.execute("""INSERT INTO runs VALUES (1, 1, 1, 1, 'old-1', now(), '{"keys": "(\\"cpu\\",)", "kind": "llvm", "tag": ""}',
                   NULL, NULL, 'plain', 5.0, MAP {})""")
    con.execute("""INSERT INTO nodes (run_id, node_index, node_name, output_index, func_name, time_us, calls,
                   kernel_family, func_base, func_number, out_shape, out_shape_logical)
                   VALUES (1, 0, 'k', 0, 'fused_nn_dense', 5.0, 1, 'dense', 'fused_nn_dense', 0, [1, 10], [1, 10])""")
    con.close()
    refused = cli("runs")  # a read never changes the file: it says what to run
    assert refused.code == 1 and "hotdb upgrade" in refused.err and "schema 1" in refused.err
    assert cli("upgrade").code == 0
    runs = cli("runs", "-f", "json").json()
    assert [r["run"] for r in runs] == ["old-1"] and runs[0]["total_time_us"] == 5.0
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT max(version) FROM schema_migrations").fetchall()[0][0] == latest_schema_version()
    assert con.execute("SELECT count(*) FROM graph_nodes").fetchall()[0][0] == 0  # a table of a later migration
    # the node table of 0001 became calls and signatures (0005), read back whole through `nodes`
    assert con.execute("SELECT node_name, func_name, time_us, out_shape_logical, is_kernel FROM nodes").fetchall() == \
        [("k", "fused_nn_dense", 5.0, [1, 10], True)]
    assert con.execute("SELECT count(*) FROM node_calls").fetchall()[0][0] == 1
    # targets in their normal form (0008), shown as TVM's text
    assert con.execute("SELECT target FROM runs").fetchall() == [('{"keys":["cpu"],"kind":"llvm","tag":""}',)]
    con.close()
    assert runs[0]["target"] == "llvm -keys=cpu"


def test_database_from_a_newer_hotdb_is_refused(cli, db, vgg16):
    """A newer hotdb's migration, as it commits (the stamp a read trusts dropped with it),
    and once its views are written too (the stamp says its version)."""
    assert cli("ingest", vgg16["table"], "--model", "m").code == 0
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO schema_migrations VALUES (99, '0099_future', now())")
    con.execute("DROP VIEW _hotdb_stamp")
    con.close()
    result = cli("runs")
    assert result.code == 1 and "schema version 99" in result.err and "upgrade hotdb" in result.err
    con = duckdb.connect(str(db))
    con.execute("CREATE VIEW _hotdb_stamp AS SELECT 99 AS schema_version, 'theirs' AS views_sha256")
    con.close()
    result = cli("runs")
    assert result.code == 1 and "schema version 99" in result.err and "upgrade hotdb" in result.err


HOLDER = textwrap.dedent("""
    import sys, time, duckdb
    con = duckdb.connect(sys.argv[1])
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    con.close()
""")


def test_a_second_writer_waits_for_the_lock_then_fails_clearly(tmp_path, vgg16):
    db = tmp_path / "locked.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "4"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    env = {**os.environ, "HOTDB_LOCK_TIMEOUT": "1"}
    started = time.monotonic()
    refused = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(db), "ingest", vgg16["table"]],
                             capture_output=True, text=True, env=env, timeout=60)
    assert refused.returncode == 1 and "did not release it within 1 s" in refused.stderr
    assert "Traceback" not in refused.stderr and time.monotonic() - started >= 1.0
    env["HOTDB_LOCK_TIMEOUT"] = "30"  # now wait long enough: the ingest lands once the lock is free
    waited = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(db), "ingest", vgg16["table"]],
                            capture_output=True, text=True, env=env, timeout=60)
    holder.wait(timeout=30)
    assert waited.returncode == 0, waited.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 1
    con.close()


def _row_counts(db) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
    counts = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in tables}
    con.close()
    return counts


def _ingest(db, *args, env=None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "hotdb", "--db", str(db), "ingest", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_ingest_killed_before_commit_leaves_none_of_its_rows(tmp_path, vgg16):
    db = tmp_path / "crash.duckdb"
    assert _ingest(db, vgg16["relay"], vgg16["tasks"], "--model", "vgg16").wait(timeout=120) == 0
    before = _row_counts(db)
    env = {**os.environ, "HOTDB_FAILPOINT": "before-commit"}
    victim = _ingest(db, vgg16["table"], vgg16["log"], "--model", "vgg16", env=env)
    assert victim.stderr.readline().strip() == "hotdb: failpoint before-commit"  # every row appended
    victim.kill()  # SIGKILL: no rollback, no close, no atexit
    assert victim.wait(timeout=30) == -9
    assert _row_counts(db) == before  # it opens, and none of that ingest is there
    again = _ingest(db, vgg16["table"], vgg16["log"], "--model", "vgg16")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0 and "nothing new" not in out + err  # nothing half-landed blocks a retry
    after = _row_counts(db)
    assert after["runs"] == before["runs"] + 1 and after["node_calls"] > before["node_calls"]
    assert after["tuning_records"] > before["tuning_records"]


def test_concurrent_ingests_land_once_each(tmp_path, vgg16):
    other = DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt"
    jobs = [(vgg16["table"], "--model", "a"), (other, "--model", "b"), (vgg16["table"], "--model", "a"),
            (vgg16["tasks"], "--model", "a")]
    serial = tmp_path / "serial.duckdb"
    for job in jobs:
        assert _ingest(serial, *job).wait(timeout=120) == 0
    db = tmp_path / "together.duckdb"
    env = {**os.environ, "HOTDB_LOCK_TIMEOUT": "120"}
    procs = [_ingest(db, *job, env=env) for job in jobs]  # all at once: each waits for the lock in turn
    results = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(jobs), [err for _, err in results]
    assert sum("nothing new" in out + err for out, err in results) == 1  # the repeated file, whichever came second
    assert _row_counts(db) == _row_counts(serial)


def test_nodes_of_schema_4_are_split_into_calls_and_signatures_unchanged(cli, db):
    con = duckdb.connect(str(db))
    for path in schema_files()[:4]:
        con.execute(path.read_text())
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [int(path.name[:4]), path.stem])
    con.execute("INSERT INTO models VALUES (1, 'old', now())")
    con.execute("INSERT INTO ingests VALUES (1, 1, now(), '0.0.1')")
    con.execute("INSERT INTO sources VALUES (1, 1, 1, 'old.txt', 'profile-report', 'profile', 'abc', 10, 4, [])")
    con.execute("INSERT INTO runs (run_id, model_id, ingest_id, source_id, label, created_at, tags) "
                "VALUES (7, 1, 1, 1, 'old-1', now(), MAP {})")
    # calls 0 and 2 share a signature; 1 differs only in a NULL list; 3 only in is_kernel
    con.execute("""INSERT INTO nodes (run_id, node_index, node_name, output_index, func_name, time_us, calls, device,
                                      input_shapes, out_shape, layouts, is_kernel)
                   VALUES (7, 0, 'k', 0, 'k', 5.0, 1, 'cpu0', [[1, 8]], [1, 8], NULL, true),
                          (7, 1, 'k', 0, 'k', 6.0, 2, 'cpu0', NULL, [1, 8], NULL, true),
                          (7, 2, 'k', 0, 'k', 7.0, 1, 'cpu1', [[1, 8]], [1, 8], NULL, true),
                          (7, 3, 'k', 0, 'k', 8.0, 1, 'cpu1', [[1, 8]], [1, 8], NULL, false)""")
    before = con.execute("SELECT * FROM nodes ORDER BY node_index").fetchall()
    con.close()
    assert cli("upgrade").code == 0
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT * FROM nodes ORDER BY node_index").fetchall() == before
    assert con.execute("SELECT node_index, signature_id FROM node_calls ORDER BY node_index").fetchall() == \
        [(0, 0), (1, 1), (2, 0), (3, 2)]
    con.close()


def test_node_columns_are_split_exactly_once():
    """Every NodeRow field is stored either per call or per signature, never both or neither."""
    from hotdb.rows import CALL_COLUMNS, SIGNATURE_COLUMNS, NodeRow, column_names
    from hotdb.store.connection import Store

    assert not set(CALL_COLUMNS) & set(SIGNATURE_COLUMNS)
    assert sorted(CALL_COLUMNS + SIGNATURE_COLUMNS) == sorted(column_names(NodeRow))
    with Store(":memory:") as store:
        def columns(table):
            return [r[0] for r in store.con.execute(f"DESCRIBE {table}").fetchall()]
        assert sorted(columns("node_calls")) == sorted(["run_id", "signature_id", *CALL_COLUMNS])
        assert sorted(columns("node_signatures")) == sorted(["run_id", "signature_id", *SIGNATURE_COLUMNS])
        assert sorted(columns("nodes")) == sorted(["run_id", *column_names(NodeRow)])


def test_reads_never_change_the_file(cli, db, vgg16):
    """Another hotdb's views are replaced in the reader's memory, not in the file; an older
    schema is refused with what to run; the file stays byte for byte as it was."""
    import hashlib

    assert cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "m").code == 0
    expected = cli("runs", "-f", "json").json()
    con = duckdb.connect(str(db))
    con.execute("CREATE OR REPLACE VIEW run_totals AS SELECT 1 AS stale")  # as another hotdb left it
    con.execute("UPDATE hotdb_meta SET value = 'another' WHERE key = 'views_sha256'")
    # its stamp: a newer hotdb's says its views; an older one drops ours, listed among the views
    assert "_hotdb_stamp" in json.loads(con.execute("SELECT value FROM hotdb_meta WHERE key = 'views'").fetchall()[0][0])
    con.execute(f"CREATE OR REPLACE VIEW _hotdb_stamp AS SELECT {latest_schema_version()} AS schema_version, "
                "'another' AS views_sha256")
    con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for args in (["runs", "-f", "json"], ["top"], ["sql", "SELECT count(*) AS n FROM run_totals"]):
        result = cli(*args)
        assert result.code == 0, (args, result.err)
    assert cli("runs", "-f", "json").json() == expected
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)")
    con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    refused = cli("top")
    assert refused.code == 1 and "hotdb upgrade" in refused.err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_upgrade_says_what_it_did_and_a_lake_needs_none(cli, tmp_path, vgg16):
    assert cli("ingest", vgg16["table"], "--model", "m").code == 0
    done = cli("upgrade")
    assert done.code == 0 and f"schema version {latest_schema_version()}" in done.err
    lake = cli("--lake", tmp_path / "lake", "upgrade", use_db=False)
    assert lake.code == 1 and "needs no upgrade" in lake.err


def _catalog(path: Path) -> list:
    """What a database file is made of: its tables' columns, views and macros with their
    comments, and the migrations it records."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [con.execute(query).fetchall() for query in (
            "SELECT table_name, column_name, data_type, comment FROM duckdb_columns() "
            "WHERE database_name = current_database() ORDER BY ALL",
            "SELECT view_name, sql, comment FROM duckdb_views() WHERE NOT internal AND database_name = current_database() "
            "ORDER BY ALL",
            "SELECT function_name, comment FROM duckdb_functions() WHERE database_name = current_database() "
            "AND NOT internal ORDER BY ALL",
            "SELECT version, name FROM schema_migrations ORDER BY ALL",
            "SELECT key, value FROM hotdb_meta ORDER BY ALL")]
    finally:
        con.close()


def test_a_new_file_is_a_copy_of_the_cached_empty_database(tmp_path, monkeypatch):
    """A new database starts as a copy of the empty one the cache keeps per version: the
    same file as one whose migrations and views were built in it."""
    from hotdb.store.connection import Store

    monkeypatch.setenv("HOTDB_CACHE_DIR", str(tmp_path / "cache"))
    Store(tmp_path / "copied.duckdb").close()
    assert len(list((tmp_path / "cache").glob("empty-*.duckdb"))) == 1
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(tmp_path / "not-a-folder" / "cache"))  # no cache: built in place
    Store(tmp_path / "built.duckdb").close()
    assert _catalog(tmp_path / "copied.duckdb") == _catalog(tmp_path / "built.duckdb")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no draft left behind
