"""A debug dump folder read by DuckDB, canonicalised once per kernel signature.

A dump of a large graph holds hundreds of thousands of nodes and twice as many trace
events, but a few hundred distinct kernels. DuckDB parses both JSON files, pairs each
node's begin and end events, finds each kernel's node and the shapes of its inputs
(queries/read/dump_*.sql); Python makes the row of each distinct kernel signature once
(`make_node`, debug_dump.py's one rule); DuckDB joins the runs to those rows and writes
them, whole, to a temporary Parquet file: the NodeFile the loader reads as the run's nodes
and the source's graph nodes. No node becomes a Python object.
"""

from __future__ import annotations

import json
import re

import duckdb

from hotdb.duck import connect, one_line
from hotdb.errors import ParseError
from hotdb.ingest.source import Source
from hotdb.resources import sql
from hotdb.rows import NodeFile, handed_over, node_frame, node_schema, unstorable


def read_dump(graph: Source, trace: Source, make_node) -> NodeFile:
    """The kernel runs of a dump, checked as the trace's Python reader checked them.
    make_node(op, attrs, shape, input_shapes, num_inputs) makes a signature's NodeRow from
    the node's fields (decoded JSON)."""
    with connect(whole_objects=True) as con:
        # one thread: each file is one JSON object, parsed by one thread anyway, and on two
        # a 57 MiB graph dump took 730 MiB to read, 507 MiB on one (bench/README.md)
        con.execute("SET threads = 1")
        _parse(con, graph, "dump_nodes_literal" if _literal(graph) else "dump_nodes", {})
        if not con.execute("SELECT count(*) FROM dump_nodes").fetchall()[0][0]:
            _check_document(con, graph, "nodes", 'expected a graph dump with a "nodes" list')
        unnamed = con.execute("SELECT min(rowid) FROM dump_nodes WHERE name IS NULL").fetchall()[0][0]
        if unnamed is not None:
            raise graph.error(None, "expected a node object with a name", field=f"nodes[{unnamed}]")
        _parse(con, trace, "dump_events", {})
        if not con.execute("SELECT count(*) FROM dump_events").fetchall()[0][0]:
            _check_document(con, trace, "traceEvents", 'expected {"traceEvents": [...]}')
        try:
            return _runs(con, graph, trace, make_node)
        except duckdb.Error as exc:  # memory or disk, not the files: those were read above
            raise graph.error(None, f"the dump could not be paired and written: {one_line(exc)}") from None


def _runs(con, graph: Source, trace: Source, make_node) -> NodeFile:
    con.execute(sql("read", "dump_pairs"))
    _check_events(con, trace)
    con.execute(sql("read", "dump_calls"))
    _check_calls(con, graph, trace)
    return _write(con, graph, trace, make_node)


def _parse(con, source: Source, name: str, params: dict) -> None:
    """queries/read/<name>.sql on the file; a DuckDB error said as Python's json says one."""
    try:
        con.execute(sql("read", name), {**_file(source), **params})
    except duckdb.Error as exc:
        raise _json_error(source, exc) from None


def _json_error(source: Source, exc: duckdb.Error):
    text = one_line(exc).partition("  Input: ")[0]  # not the whole input again
    where = re.search(r"at byte (\d+)[^:]*: (.*?)\.?\s*$", text)
    if where is None:
        return source.error(None, f"expected JSON: {text.removeprefix('Invalid Input Error: ')}")
    offset = min(int(where.group(1)), len(source.data))
    line = source.data.count(b"\n", 0, offset) + 1
    column = offset - (source.data.rfind(b"\n", 0, offset) + 1)
    return source.error(line, f"expected JSON: {where.group(2)} at column {max(column, 1)}")


def _check_document(con, source: Source, key: str, message: str) -> None:
    """A file that gave no rows: an empty list is fine, a document without one is not."""
    literal = key == "nodes" and _literal(source)  # only the graph was ever written as a string
    kinds = con.execute(sql("read", "dump_document"), {"key": key, "literal": literal, **_file(source)}).fetchall()
    if not kinds or kinds[0][0] != "OBJECT":
        raise source.error(None, "expected a JSON object")
    if kinds[0][1] != "ARRAY":
        raise source.error(None, message, field=key)


def _literal(source: Source) -> bool:
    """TVM <= 0.6 wrote the graph as a JSON string literal holding the JSON."""
    return source.data.lstrip()[:1] == b'"'


def _file(source: Source) -> dict:
    return {"path": str(source.path), "size": len(source.data) + 1}


def _check_events(con, trace: Source) -> None:
    bad = con.execute(sql("read", "dump_bad_event")).fetchall()
    if bad:
        event, problem, name = bad[0]
        field = f"traceEvents[{event}]"
        if problem == "fields":
            raise trace.error(None, "expected events with name, ph and ts", field=field)
        if problem == "unbegun":
            raise trace.error(None, f"end event of {name!r} without a begin", field=field)
        raise trace.error(None, f"node {name!r} ends before it begins", field=field)
    open_count, first = con.execute(sql("read", "dump_open_events")).fetchall()[0]
    if open_count:
        raise trace.error(None, f"{open_count} events never end (truncated trace?), e.g. {first!r}",
                          field="traceEvents")


def _check_calls(con, graph: Source, trace: Source) -> None:
    bad = con.execute(sql("read", "dump_bad_call")).fetchall()
    if bad:
        name, known, missing = bad[0]
        if not known:
            raise trace.error(None, f"trace event for node {name!r}, which the graph dump does not have",
                              field="traceEvents")
        raise graph.error(None, f"node {name!r} has input {missing!r}, which is not a node", field="inputs")


def _write(con, graph: Source, trace: Source, make_node) -> NodeFile:
    """Each distinct signature's row made once, checked against the columns' types, and
    every run written with its signature's columns."""
    import pyarrow as pa

    numbers, rows = [], []
    for signature, op, attrs, shape, input_shapes, num_inputs in con.execute(sql("read", "dump_signatures")).fetchall():
        numbers.append(signature)
        shape, input_shapes = _decoded(shape), _decoded(input_shapes)
        try:
            rows.append(make_node(op, _decoded(attrs), shape, input_shapes, num_inputs))
        except (TypeError, ValueError, OverflowError):  # a dimension no integer is (1e400, "x")
            raise graph.error(None, f"expected shapes of integers for a node of {op!r}, found {shape!r} "
                                    f"(inputs {input_shapes!r})", field="shape") from None
    if not rows:
        raise trace.error(None, "the trace has no kernel events")
    try:
        frame = node_frame(graph, rows)
    except ParseError:
        raise _unstorable_node(con, graph, dict(zip(numbers, rows))) from None
    con.register("dump_signature_rows", frame.append_column("signature", pa.array(numbers, type=pa.uint64())))
    count = con.execute("SELECT count(*) FROM dump_calls WHERE kernel").fetchall()[0][0]
    return handed_over(lambda path: NodeFile(path, count),
                       lambda path: con.execute(sql("read", "dump_write"), {"path": str(path)}), "hotdb-dump-")


def _unstorable_node(con, graph: Source, by_number: dict):
    """A value no column holds, said at the first node that has it (its row in node order),
    as when every node was a row."""
    order = con.execute("SELECT signature FROM dump_calls WHERE kernel ORDER BY node_index").fetchall()
    return unstorable(graph, [by_number[number] for (number,) in order], node_schema())



def _decoded(text: str | None):
    return json.loads(text) if text is not None else None
