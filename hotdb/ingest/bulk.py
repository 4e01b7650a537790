"""Large profiles, read by DuckDB and canonicalised once per kernel signature.

A million calls of one model carry a few hundred distinct (kernel, argument shapes,
layouts) signatures. For a report larger than STREAM_BYTES, DuckDB's own readers do the
per-call work: a CSV is scanned twice, streaming (a JSON report is one object: it is
read once into a table, scanned twice): once for the per-call columns (signature hash,
time, count, device), kept in a DuckDB table in file order, and once for the distinct
signatures, which Python canonicalises exactly as the row-by-row reader does
(NodeRow.derive). The loader stores a node_signatures row per signature and the calls as
node_calls rows pointing to them, inside DuckDB. No call becomes a Python object; what
stays in memory is a few numbers per call, in DuckDB.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

import duckdb

from hotdb.ingest.base import Source
from hotdb.ingest.rows import INT32_MAX, NodeRow
from hotdb.settings import connect


@dataclass
class NodeTable:
    """The nodes of one profile, columnar: `calls` (a table of `con` in file order: its
    rowid is the node index; signature, time_us, calls_real, device) and one derived
    NodeRow per signature, in order of first call."""

    con: duckdb.DuckDBPyConnection
    calls: str
    signatures: dict[int, NodeRow]
    count: int
    first_line: int | None  # the line of the first call (CSV); None where calls have no lines (JSON)

    def per_call_sql(self) -> str:
        """The per-call columns, for the loader to join with the signatures."""
        line = "NULL::INTEGER" if self.first_line is None else f"(rowid + {self.first_line})::INTEGER"
        return (f"SELECT rowid::INTEGER AS node_index, signature, time_us, greatest(trunc(calls_real), 1)::INTEGER AS calls, "
                f"device, {line} AS line_no FROM {self.calls}")

    def devices(self) -> list[str]:
        return [row[0] for row in self.con.execute(
            f"SELECT DISTINCT device FROM {self.calls} WHERE device IS NOT NULL ORDER BY 1").fetchall()]

    def signature_ids(self) -> dict[str, list]:
        """The reader's signature hash -> signature_id (0, 1, ... by first call), with the
        per-call columns a call takes from its signature's example (a report prints no
        share or start time)."""
        rows = list(self.signatures.values())
        return {"signature": list(self.signatures), "signature_id": list(range(len(rows))),
                "reported_share_pct": [r.reported_share_pct for r in rows], "start_us": [r.start_us for r in rows]}


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_report_csv(source: Source, make_node) -> NodeTable:
    """A Report .csv() of any size, streamed by DuckDB's CSV reader. make_node(line_no,
    call dict) builds the NodeRow of one call (the row-by-row reader's own function),
    here once per signature."""
    first = source.head.lstrip("\ufeff").partition("\n")[0].rstrip("\r")
    try:
        header = next(csv.reader([first]))
    except (csv.Error, StopIteration) as exc:
        raise source.error(1, f"expected a CSV header: {exc}") from None
    if "Duration (us)" not in header or "Name" not in header:
        raise source.error(1, "expected a header with 'Name' and 'Duration (us)'")
    # the header as read, every column text: no sniffing, so a bad row is reported, not guessed around
    columns = ", ".join(f"{_literal(name)}: 'VARCHAR'" for name in header)
    scan = (f"read_csv({_literal(str(source.path))}, auto_detect = false, header = true, delim = ',', "
            f"quote = '\"', escape = '\"', columns = {{{columns}}}, strict_mode = true, parallel = true)")
    # the calls in file order (insertion order is kept): a call's line is its row number + 2
    return _node_table(source, con=connect(), scan=scan, header=header, make_node=make_node, first_line=2)


def read_report_json(source: Source, make_node) -> NodeTable:
    """A Report .json() of any size. It is one JSON object, so DuckDB's reader holds it
    whole while it reads (native memory, not Python objects). Each metric
    ({"microseconds": 12.5}) becomes its value as text, as in the row-by-row reader."""
    con = connect()
    scan = f"read_json({_literal(str(source.path))}, maximum_object_size = {source.size + 1})"
    try:
        # materialised: the file is parsed once, then scanned twice as a table
        con.execute(f"CREATE TEMP TABLE report_calls AS SELECT unnest(calls) AS call FROM {scan}")
        described = con.execute("DESCRIBE SELECT call.* FROM report_calls").fetchall()
    except duckdb.Error as exc:
        raise source.error(None, f"expected a Report JSON object with a list of call objects: {_first_line(exc)}",
                           field="calls") from None
    types = {row[0]: row[1] for row in described}
    if "Duration (us)" not in types or "Name" not in types:
        raise source.error(None, "expected calls with 'Name' and 'Duration (us)'", field="calls")
    values = []
    for key, type_name in types.items():
        column = f"call.{_ident(key)}"
        if _METRIC_TYPE.match(type_name):
            column = f"struct_extract_at({column}, 1)"
        values.append(f"{column}::VARCHAR AS {_ident(key)}")
    calls = f"(SELECT {', '.join(values)} FROM report_calls)"
    return _node_table(source, con, calls, list(types), make_node, first_line=None)


# a metric object as Report.json() writes one: {"microseconds": 12.5}, {"string": "cpu0"}
_METRIC_TYPE = re.compile(r'^STRUCT\("?(string|count|microseconds|percent|ratio)"? [A-Z]+\)$')


def _node_table(source: Source, con, scan: str, header: list[str], make_node, first_line: int | None) -> NodeTable:
    """Scan the calls twice: their per-call columns into a table, in order (a call's row
    number is its node index), and their distinct signatures, each canonicalised once.
    An error names the call's line, or where calls have no lines, its index."""

    def where(row: int) -> tuple[int | None, str | None]:
        return (None, f"calls[{row}]") if first_line is None else (row + first_line, None)

    keyed = [c for c in header if c in ("Name", "Argument Shapes", "Hash") or "layout" in c]
    signature = f"hash({', '.join(_ident(c) for c in keyed)})"
    duration = _ident("Duration (us)")
    time_us = f"TRY_CAST(replace({duration}, ',', '') AS DOUBLE)"
    count = _ident("Count") if "Count" in header else "NULL"
    device = _ident("Device") if "Device" in header else "NULL"
    try:
        con.execute(f"""
            CREATE TABLE calls AS
            SELECT {signature} AS signature,
                   {time_us} AS time_us,
                   {duration} IS NULL OR {time_us} IS NULL AS bad_time,
                   coalesce(TRY_CAST(replace(nullif({count}, ''), ',', '') AS DOUBLE), 1) AS calls_real,
                   nullif({count}, '') IS NOT NULL AND TRY_CAST(replace({count}, ',', '') AS DOUBLE) IS NULL AS bad_count,
                   nullif({device}, '') AS device
            FROM {scan}""")
    except duckdb.Error as exc:
        raise _reader_error(source, exc, header) from None
    bad = con.execute("""
        SELECT rowid, bad_time, time_us, bad_count FROM calls
        WHERE bad_time OR bad_count OR time_us < 0 OR isinf(time_us) OR isnan(time_us) OR calls_real > ?
        ORDER BY rowid LIMIT 1""", [INT32_MAX]).fetchall()
    if bad:
        row, bad_time, time_us, bad_count = bad[0]
        line, field = where(row)
        column = "Duration (us)" if bad_time or time_us is not None and not 0 <= time_us < float("inf") else "Count"
        found = con.execute(f"SELECT {_ident(column)} FROM {scan} LIMIT 1 OFFSET {row}").fetchall()[0][0]
        if column == "Count":  # the row-by-row reader's words (profile_report._node)
            expected = "an integer" if bad_count else "a count below 2^31"
        else:
            expected = "a number" if bad_time else "a finite duration >= 0"
        raise source.error(line, f"expected {expected}, found {found!r}", field=field or column)
    total = con.execute("SELECT count(*) FROM calls").fetchall()[0][0]
    if not total:
        raise source.error(None, "the report has no calls")
    # one example call per signature, its first: a bad shape is reported where it first occurs
    first_row = dict(con.execute("SELECT signature, min(rowid) FROM calls GROUP BY signature").fetchall())
    distinct = con.execute(f"""
        SELECT {signature} AS signature, {', '.join(f'any_value({_ident(c)})' for c in keyed)}
        FROM {scan} GROUP BY ALL""").fetchall()
    signatures = {}
    for sig, *values in sorted(distinct, key=lambda found: first_row[found[0]]):
        call = dict(zip(keyed, values))
        call["Duration (us)"] = "0"
        line, _ = where(first_row[sig])
        signatures[sig] = make_node(line, call)
    return NodeTable(con, "calls", signatures, total, first_line)


def _reader_error(source: Source, exc: duckdb.Error, header: list[str]):
    """DuckDB's CSV error, said as the row-by-row reader says it: line, what was expected."""
    text = str(exc)
    line = re.search(r"CSV Error on Line: (\d+)", text)
    columns = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    if line and columns:
        return source.error(int(line.group(1)), f"expected {columns.group(1)} fields ({', '.join(header)}), "
                                                f"found {columns.group(2)}")
    return source.error(int(line.group(1)) if line else None, f"the file is malformed: {_first_line(exc)}")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0]
