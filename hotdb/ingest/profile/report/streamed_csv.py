"""Large CSV profiles, read by DuckDB and canonicalised once per kernel signature.

A million calls of one model carry a few hundred distinct (kernel, argument shapes,
layouts) signatures. For a Report .csv() larger than HOTDB_STREAM_BYTES, DuckDB's own
reader does the per-call work: the CSV is scanned once whole, streaming, for the per-call
columns (signature hash, time, count, device), checked, and written in file order to a
temporary Parquet file; then its beginning again, up to the first call of the last signature to appear (a profile
repeats its kernels: a few hundred rows of a million), for one example of each distinct
signature, which Python canonicalises exactly as the row-by-row reader does (derive.py). The reader returns a NodeTable, a description of
where its rows are; the loader stores a node_signatures row per signature and reads the
calls from the file into node_calls, inside its own DuckDB. No call becomes a Python
object. (A large Report .json() is decoded call by call in Python instead, to the same
kind of Parquet file: streamed_json.py.)
"""

from __future__ import annotations

import csv
import re

import duckdb

from hotdb.duck import connect, one_line
from hotdb.failpoints import failpoint
from hotdb.ingest.source import Source
from hotdb.resources import sql
from hotdb.rows import INT32_MAX, NodeList, NodeTable, handed_over


def _sql(name: str, **parts) -> str:
    """queries/read/<name>.sql with its placeholders filled: the report's own column names,
    quoted (_ident, _literal), never its data."""
    return sql("read", name).format(**parts)


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
    scan = (f"read_csv($path, auto_detect = false, header = true, delim = ',', "
            f"quote = '\"', escape = '\"', columns = {{{columns}}}, strict_mode = true, parallel = true)")
    # the calls in file order (insertion order is kept): a call's line is its row number + 2
    with connect() as con:
        return _node_table(source, con=con, scan=scan, header=header, make_node=make_node, first_line=2)


def _node_table(source: Source, con, scan: str, header: list[str], make_node, first_line: int | None) -> NodeTable:
    """_scanned, any DuckDB error of a later scan said in one line too: a file cut or
    changed while it is read fails there, not in the first scan."""
    try:
        return _scanned(source, con, scan, header, make_node, first_line)
    except duckdb.Error as exc:
        raise _reader_error(source, exc, header) from None


def _scanned(source: Source, con, scan: str, header: list[str], make_node, first_line: int | None) -> NodeTable:
    """Scan the calls: their per-call columns into a table, in order (a call's row number
    is its node index); then the rows up to the last signature's first call for one
    example of each distinct signature, each canonicalised once.
    An error names the call's line, or where calls have no lines, its index."""
    params = {"path": str(source.path)} if "$path" in scan else {}

    def where(row: int) -> tuple[int | None, str | None]:
        return (None, f"calls[{row}]") if first_line is None else (row + first_line, None)

    keyed = [c for c in header if c in ("Name", "Argument Shapes", "Hash") or "layout" in c]
    signature = f"hash({', '.join(_ident(c) for c in keyed)})"
    con.execute(_sql("report_calls", signature=signature, duration=_ident("Duration (us)"), scan=scan,
                     count=_ident("Count") if "Count" in header else "NULL",
                     device=_ident("Device") if "Device" in header else "NULL"), params)
    failpoint("report-scanned")  # the file is scanned again below: a test cuts it here
    bad = con.execute(_sql("first_bad_call"), {"most": INT32_MAX}).fetchall()
    if bad:
        row, bad_time, time_us, bad_count = bad[0]
        line, field = where(row)
        column = "Duration (us)" if bad_time or time_us is not None and not 0 <= time_us < float("inf") else "Count"
        found = con.execute(f"SELECT {_ident(column)} FROM {scan} LIMIT 1 OFFSET {int(row)}", params).fetchall()[0][0]
        if column == "Count":  # the row-by-row reader's words (profile_report._node)
            expected = "an integer" if bad_count else "a count below 2^31"
        else:
            expected = "a number" if bad_time else "a finite duration >= 0"
        raise source.error(line, f"expected {expected}, found {found!r}", field=field or column)
    total = con.execute("SELECT count(*) FROM calls").fetchall()[0][0]
    if not total:
        raise source.error(None, "the report has no calls")
    # one example call per signature, its first: a bad shape is reported where it first occurs
    con.execute(_sql("report_signatures", signature=signature, scan=scan,
                     values=", ".join(f"any_value({_ident(c)})" for c in keyed)), params)
    signatures, numbers = NodeList(source), []
    while batch := con.fetchmany(4096):
        for first, sig, *values in batch:
            call = dict(zip(keyed, values))
            call["Duration (us)"] = "0"
            signatures.append(make_node(where(first)[0], call))
            numbers.append(sig)
    devices = [row[0] for row in con.execute(
        "SELECT DISTINCT device FROM calls WHERE device IS NOT NULL ORDER BY 1").fetchall()]
    line = "NULL::INTEGER" if first_line is None else f"(rowid + {int(first_line)})::INTEGER"

    return handed_over(lambda path: NodeTable(path, signatures, numbers, total, devices),
                       lambda path: con.execute(_sql("write_calls", line=line), {"path": str(path)}),
                       "hotdb-calls-")


def _reader_error(source: Source, exc: duckdb.Error, header: list[str]):
    """DuckDB's CSV error, said as the row-by-row reader says it: line, what was expected."""
    text = str(exc)
    line = re.search(r"CSV Error on Line: (\d+)", text)
    columns = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    if line and columns:
        return source.error(int(line.group(1)), f"expected {columns.group(1)} fields ({', '.join(header)}), "
                                                f"found {columns.group(2)}")
    return source.error(int(line.group(1)) if line else None, f"the file is malformed: {one_line(exc)}")

