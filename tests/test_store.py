"""The store: migrations from old databases, newer ones refused, a locked file waited for."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone

import duckdb

from hotdb.store.connection import latest_schema_version
from hotdb.store.resources import schema_files


def test_database_of_the_first_migration_is_migrated_with_its_data(cli, db, vgg16):
    first = schema_files()[0]
    con = duckdb.connect(str(db))
    con.execute(first.read_text())
    con.execute("INSERT INTO schema_migrations VALUES (1, ?, ?)", [first.stem, datetime.now(timezone.utc)])
    con.execute("INSERT INTO models VALUES (1, 'old', now())")
    con.execute("INSERT INTO ingests VALUES (1, 1, now(), '0.0.1')")
    con.execute("INSERT INTO sources VALUES (1, 1, 1, 'old.txt', 'debug-table', 'profile', 'abc', 10, 1, [])")
    con.execute("INSERT INTO runs VALUES (1, 1, 1, 1, 'old-1', now(), NULL, NULL, NULL, 'plain', 5.0, MAP {})")
    con.execute("""INSERT INTO nodes (run_id, node_index, node_name, output_index, func_name, time_us, calls,
                   kernel_family, func_base, func_number, out_shape, out_shape_logical)
                   VALUES (1, 0, 'k', 0, 'fused_nn_dense', 5.0, 1, 'dense', 'fused_nn_dense', 0, [1, 10], [1, 10])""")
    con.close()
    runs = cli("runs", "-f", "json").json()
    assert [r["run"] for r in runs] == ["old-1"] and runs[0]["total_time_us"] == 5.0
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT max(version) FROM schema_migrations").fetchall()[0][0] == latest_schema_version()
    assert con.execute("SELECT count(*) FROM graph_nodes").fetchall()[0][0] == 0  # a table of a later migration
    con.close()


def test_database_from_a_newer_hotdb_is_refused(cli, db, vgg16):
    assert cli("ingest", vgg16["table"], "--model", "m").code == 0
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO schema_migrations VALUES (99, '0099_future', now())")
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
