"""The SQL files of queries/<folder>/ (commands, load, lake, read) keep their headers true:
each declares the $names its body uses (`@param`) and the columns it returns (`@returns`),
checked here against the body and against DuckDB running it on the bundled example."""

from __future__ import annotations

import re

import pyarrow.parquet as pq
import pytest

from hotdb.api import Hotdb
from hotdb.examples import example_files
from hotdb.ops import stats
from hotdb.resources import FOLDERS, sql, sql_dir, sql_names
from hotdb.store import delta
from hotdb.store.connection import Store
from hotdb.store.sqlfiles import read_query

QUERY_FILES = sorted(path for folder in FOLDERS for path in (sql_dir("queries") / folder).glob("*.sql"))
COMMANDS = [path for path in QUERY_FILES if path.parent.name == "commands"]


def _id(path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """A database of the bundled VGG-16 build, open for writing, and what its rows are."""
    folder = tmp_path_factory.mktemp("sql")
    path = folder / "example.duckdb"
    Hotdb(path).ingest(example_files("vgg16"), model="vgg16")
    # a file of the lake's commit log, as its writer makes its rows (queries/lake/log_*.sql)
    pq.write_table(delta._claim_rows(1, 0, ["schema:1"]), folder / "log.parquet")
    with Store(path) as store:
        stats.register(store.con)  # compare.sql's functions, as ops/compare.py registers them
        (run_id, label, model_id), = store.con.execute("SELECT run_id, label, model_id FROM runs").fetchall()
        yield store, {"run_id": run_id, "a": run_id, "b": run_id, "baseline": run_id, "tuned": run_id,
                      "label": label, "model": "vgg16", "model_id": model_id, "model_ids": [model_id],
                      "models": [model_id], "runs": [run_id], "labels": [label], "name": "vgg16",
                      "coverage_pct": 90.0, "threshold_pct": 5.0, "basis": "tunable", "by": "workload",
                      "limit": 3, "tuner": "autotvm", "tasks": ["x"], "tuned_kernels": ["x"],
                      "weight_models": ["vgg16"], "weight_values": [1.0], "ingest": 1, "ingests": [1],
                      "sha256": "0" * 64, "files": [str(folder / "log.parquet")], "keys": ["x"], "hashes": ["x"], "per_workload": 4, "after": None, "a_runs": [run_id], "b_runs": [run_id], "floor_pct": 20.0,
                      # a filter left open (NULL: any)
                      "target": None, "ir": None, "task": None, "workload": None, "device": None}


@pytest.mark.parametrize("path", QUERY_FILES, ids=_id)
def test_header_declares_the_parameters_the_body_uses(path):
    query = read_query(path)
    assert query.description, f"{_id(path)}: no description in its header"
    assert all(query.params.values()), f"{_id(path)}: a @param says nothing of its parameter"
    assert sorted(query.params) == sorted(query.used_params), \
        f"{_id(path)}: declares {sorted(query.params)}, uses {sorted(query.used_params)}"


@pytest.mark.parametrize("path", [p for p in QUERY_FILES if p.parent.name != "read"], ids=_id)
def test_no_text_is_spliced_into_the_sql(path):
    """Values are named parameters; only the large-file reader's files (read/) take the
    report's own column names, quoted."""
    assert not re.search(r"\{\w+\}", read_query(path).sql), f"{_id(path)}: a {{placeholder}} to fill"


@pytest.mark.parametrize("path", COMMANDS, ids=_id)
def test_command_returns_the_columns_it_declares(example, path):
    store, values = example
    query = read_query(path)
    assert query.returns, f"{_id(path)}: no @returns in its header"
    cursor = store.con.execute(query.sql, {name: values[name] for name in query.used_params})
    assert [d[0] for d in cursor.description] == query.returns
    cursor.fetchall()


# relations a caller registers before it runs the file: such files are run by the tests of
# the loader and the lake, not alone
_REGISTERED = re.compile(r"\b(?:FROM|JOIN)\s+(files|_frame|_calls|_call_file|_rows)\b", re.I)


# the table a file that is named one is run on here: one with the column it selects by
_TABLE_OF = {"copy_run_id": "node_calls", "copy_source_id": "tasks", "copy_shared": "workloads",
             "rows_rematched": "kernel_match_results"}


def _statement(query) -> str:
    return "\n".join(line for line in query.sql.splitlines() if not line.startswith("--")).strip()


@pytest.mark.parametrize("path", [p for p in QUERY_FILES if p.parent.name in ("load", "lake")], ids=_id)
def test_write_path_query_returns_what_it_declares(example, path):
    """The loader's and the lake's files declare columns exactly when they return rows (a
    SELECT, an INSERT ... RETURNING), and return those, run on the example with its own
    values in a transaction that is rolled back."""
    store, values = example
    query = read_query(path)
    statement = _statement(query)
    reads = re.match(r"(SELECT|WITH)\b", statement, re.I) or re.search(r"\bRETURNING\b", statement, re.I)
    assert bool(query.returns) == bool(reads), f"{_id(path)}: @returns {query.returns} for {statement.split()[0]}"
    if not reads or _REGISTERED.search(statement):
        return
    # `@returns *`: the columns of the table it reads (a lake table, the table it is named)
    fresh = {"now": "2024-01-01 00:00:00+00", "path": "x.txt", "format": "debug-table", "role": "profile",
             "hotdb_version": "0", "size_bytes": 1, "row_count": 0, "warnings": [], "name": "a new model",
             "ingest_id": 1, "table": _TABLE_OF.get(path.stem, "runs")}
    store.con.begin()
    try:
        cursor = store.con.execute(statement, {name: fresh.get(name, values.get(name)) for name in query.used_params})
        columns = [d[0] for d in cursor.description]
        cursor.fetchall()
    finally:
        store.con.rollback()
    if query.returns == ["*"]:
        table = [r[0] for r in store.con.execute(sql("load", "table_types"), {"table": fresh["table"]}).description]
        assert sorted(columns) == sorted(table), _id(path)
    else:
        assert columns == query.returns, _id(path)


def test_every_table_is_written_and_imported_by_its_key():
    """The lake writes each table's rows by the column that ties them to an ingest, and a
    lake import moves their ids: every key has its files, and only tables tied to an
    ingest by ingest_id carry a model id (the other copy files leave it out)."""
    from hotdb.store import lake, lake_import

    names = sql_names("lake")
    with Store(":memory:") as store:
        columns = {}
        for table, column in store.con.execute(sql("lake", "schema_tables")).fetchall():
            columns.setdefault(table, set()).add(column)
    for table, key in lake.tables().items():
        assert lake._ROWS[key] in names, table
        if table in ("models", "kernel_match_results"):
            continue  # made by the lake's context; re-decided
        assert lake_import._COPY[key] in names, table
        if "model_id" in columns[table]:
            assert key == "ingest_id", f"{table}: a model id the copy of {key} rows would not move"
        if key is None:
            assert f"insert_{table}" in names, f"{table}: shared rows with no insert_{table}.sql"


def test_command_names_in_the_code_have_files():
    """Every queries/commands/ name the use cases run exists (a renamed file is found here,
    not by the command that runs it)."""
    from pathlib import Path

    import hotdb

    code = "\n".join(p.read_text() for p in Path(hotdb.__file__).parent.rglob("*.py"))
    named = set(re.findall(r"\b(?:query|value)\(\s*\w+,\s*\"(\w+)\"", code))
    assert named and named <= sql_names("commands"), sorted(named - sql_names("commands"))
