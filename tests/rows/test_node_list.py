"""Nodes kept as Arrow while a table is read (rows.NodeList), and grouped into kernel
signatures by DuckDB when stored (queries/load/node_signatures_of.sql): whatever the chunk
size, the same rows and signatures land, and a bad value is still named on its line."""

from __future__ import annotations

import duckdb
import pytest
from helpers import parse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotdb import rows
from hotdb.api import Hotdb
from hotdb.errors import ParseError
from hotdb.store.connection import Store

HEADER = ("Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs\n"
          "---------  ---  --------  -------  -----  ------  -------\n")


def table(kernels: list[tuple[int, int]]) -> str:
    """A debug table: one row per (kernel number, channels), each its own node (a kernel
    called again is another node: its own signature, as its name is part of it)."""
    lines = [f"node_{i}  fused_nn_conv2d_add_{k}  {10 + i}.5  1.0  (1, {c}, 56, 56)  3  1\n"
             for i, (k, c) in enumerate(kernels)]
    return HEADER + "".join(lines) + f"Total_time  -  {sum(10.5 + i for i in range(len(kernels))):.1f}  -  -  -  -\n"


def stored(db) -> tuple[list, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        nodes = con.execute("SELECT * EXCLUDE (run_id) FROM nodes ORDER BY node_index").fetchall()
        signatures = con.execute("SELECT * EXCLUDE (run_id) FROM node_signatures ORDER BY signature_id").fetchall()
        return nodes, signatures
    finally:
        con.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kernels=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([64, 128])), min_size=1, max_size=12),
       chunk=st.integers(1, 5))
def test_any_chunk_size_stores_the_same_nodes_and_signatures(tmp_path_factory, monkeypatch, kernels, chunk):
    folder = tmp_path_factory.mktemp("chunks")
    path = folder / "t.txt"
    path.write_text(table(kernels))
    out = []
    for size in (chunk, 10**9):
        monkeypatch.setattr(rows.NodeList, "CHUNK", size)
        db = folder / f"{size}.duckdb"
        Hotdb(db).ingest([path], model="m")
        out.append(stored(db))
    (nodes, signatures), (whole_nodes, whole_signatures) = out
    assert nodes == whole_nodes and signatures == whole_signatures
    assert [n[0] for n in nodes] == list(range(len(kernels)))  # file order
    # numbered by first node (signatures shared by calls: tests/ingest/profile/test_profile_report_streamed.py)
    assert [(s[1], s[3], s[4][1]) for s in signatures] == [(f"node_{i}", f"fused_nn_conv2d_add_{k}", c)
                                                           for i, (k, c) in enumerate(kernels)]


def test_list_iterates_and_indexes_what_was_appended(tmp_path, monkeypatch):
    monkeypatch.setattr(rows.NodeList, "CHUNK", 2)
    path = tmp_path / "t.txt"
    path.write_text(table([(0, 64), (1, 64), (0, 64), (2, 128), (3, 64)]))
    _, parsed = parse(path)
    assert isinstance(parsed.nodes, rows.NodeList) and len(parsed.nodes) == 5
    assert [n.func_name for n in parsed.nodes] == [f"fused_nn_conv2d_add_{k}" for k in (0, 1, 0, 2, 3)]
    assert parsed.nodes[3].out_shape == [1, 128, 56, 56] and parsed.nodes[-1].line_no == 7
    assert parsed.nodes.frame().num_rows == 5


def test_a_value_beyond_its_column_after_a_flush_is_named_on_its_line(tmp_path, monkeypatch):
    monkeypatch.setattr(rows.NodeList, "CHUNK", 2)
    text = table([(0, 64), (1, 64), (2, 64), (3, 64)]).replace("(1, 64, 56, 56)  3  1\n", "(1, 3000000000, 56, 56)  3  1\n", 1)
    path = tmp_path / "t.txt"
    path.write_text(text)
    with pytest.raises(ParseError) as caught:
        parse(path)
    assert caught.value.line == 3 and "out_shape" in str(caught.value) and "below 2^31" in str(caught.value)


def test_node_schema_is_the_node_tables_types(tmp_path):
    """The Arrow types rows are built in are the columns' own, so a value is refused where
    it is read, never cast on the way in."""
    store = Store(tmp_path / "db.duckdb")
    try:
        declared = {}
        for table in ("node_signatures", "node_calls"):
            schema = store.con.sql(f"SELECT * FROM {table} LIMIT 0").to_arrow_table().schema
            declared.update({f.name: f.type for f in schema if f.name in rows.column_names(rows.NodeRow)})
    finally:
        store.close()
    built = {f.name: f.type for f in rows.node_schema()}
    assert declared and {name: built[name] for name in declared} == declared
