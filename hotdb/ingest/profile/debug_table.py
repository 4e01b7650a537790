"""`debug-table`: the graph debug runtime's printed per-node table (docs/formats.md).

    Node Name   Ops   Time(us)   Time(%)   Shape   Inputs   Outputs   [Measurements(us)]
    ---------   ---   --------   -------   -----   ------   -------   [----------------]
    fused_nn_contrib_conv2d_NCHWc_add_nn_relu_5   ...   (1, 2, 112, 112, 64)   3   1   [25.7, 25.8]
    Total_time  -  <total_us>  -  -  -  -  -

Also the NNVM-era variant with `Start Time` and `End Time` columns. Columns are
separated by two or more spaces (names have none; shapes and measurement lists
contain single spaces only). Log lines around the table are ignored.
"""

from __future__ import annotations

import ast
import re
import tempfile
from collections.abc import Iterable, Iterator

import duckdb

from hotdb.duck import connect, one_line
from hotdb.ingest.source import Source
from hotdb.resources import sql
from hotdb.rows import (
    INT32_MAX,
    NodeFile,
    NodeList,
    NodeRow,
    Parsed,
    RunInfo,
    SampleList,
    SampleRow,
    handed_over,
    node_schema,
)
from hotdb.rows.derive import derive

# Columns are separated by two or more spaces, or by tabs where an editor converted them.
_HEADER = re.compile(r"^\s*Node Name(?:\s{2,}|\t)\s*Ops(?:\s{2,}|\t)\s*Time\(us\)")
_SPLIT = re.compile(r"\s*\t\s*|\s{2,}")
_SHAPE = re.compile(r"^\((\s*\d+\s*(,\s*\d+\s*)*,?)?\)$")
_REQUIRED = ["Node Name", "Ops", "Time(us)", "Time(%)", "Shape", "Inputs", "Outputs"]
_KNOWN = set(_REQUIRED) | {"Measurements(us)", "Start Time", "End Time"}
# Relative tolerance of the Total_time check: cells are rounded to 3 decimals.
_TOTAL_TOLERANCE = 0.01


class DebugTable:
    name = "debug-table"
    role = "profile"
    reads = "graph debug runtime printed table (TVM 0.6-0.19), with or without Measurements(us); NNVM Start/End variant"
    detects = "a header line 'Node Name  Ops  Time(us)  Time(%) ...'"

    def sniff(self, source: Source) -> bool:
        return any(_HEADER.match(line) for line in source.head.splitlines()[:200])

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        return list(self.spans(enumerate(lines)))

    def spans(self, numbered: Iterable[tuple[int, str]]) -> Iterator[tuple[int, int]]:
        """Each table, (first, one past last) 0-based indexes of `(index, line)` pairs read
        in order (a list's or a stream's): its header to its Total_time row, or to the
        first line that is not a row."""
        start = columns = None
        i = -1
        for i, line in numbered:
            if start is not None:
                text = line.strip()
                if text.startswith("Total_time"):
                    yield start, i + 1
                    start = None
                    continue
                if text and not _HEADER.match(line) and (len(_SPLIT.split(text)) == columns
                                                         or set(text) <= {"-", " ", "\t"}):
                    continue
                yield start, i
                start = None
            if _HEADER.match(line):
                start, columns = i, len(_SPLIT.split(line.strip()))
        if start is not None:
            yield start, i + 1

    # a file too large to be a paste with this twice holds several tables (paste.split_repeated)
    repeats = b"Node Name"

    def parse(self, source: Source) -> Parsed:
        """Read line by line (`iter_lines`: a large table is streamed), each row kept as
        Arrow (rows.NodeList, rows.SampleList), those beyond SPILL_BYTES in a file: what is
        held does not grow with the rows (bench/README.md, "Streamed text")."""
        lines = source.iter_lines()
        header_at, columns = _header(source, lines)
        parsed = Parsed(role="profile", nodes=NodeList(source, self.SPILL_BYTES), run=RunInfo(variant=_variant(columns)))
        if "Measurements(us)" in columns:
            parsed.samples = SampleList(source)
        rows = _Rows(source, parsed, columns)
        for line_no, line in lines:
            text = line.strip()
            if line_no == header_at + 1 and text and set(text) <= {"-", " ", "\t"}:
                continue  # the dashes under the header
            if not text:
                if parsed.nodes:
                    break  # the table ends at the first blank line after its rows
                continue
            cells = _SPLIT.split(text)
            if cells[0] == "Total_time":
                if len(cells) < 2:
                    raise source.error(line_no, "expected the total time after Total_time", field="Total_time")
                rows.total_reported = _number(source, line_no, cells, 2 if len(cells) > 2 else 1, "Total_time")
                break
            rows.add(line_no, cells)
        if not parsed.nodes:
            raise source.error(header_at, "the table has a header but no rows")
        count, total_us = len(parsed.nodes), rows.total_us
        if parsed.nodes.spilled:
            parsed.node_file, total_us = _node_file(source, parsed.nodes)
            parsed.nodes = []
        _check_total(source, parsed, count, total_us, rows.total_reported)
        return parsed

    # nodes beyond this many bytes of Arrow go to a file: a GiB table holds ~7 million, ~0.1 KB each
    SPILL_BYTES = 32 * 2**20


def _header(source: Source, lines) -> tuple[int, list[str]]:
    """The header's line number and columns, checked; `lines` is read up to it."""
    for line_no, line in lines:
        if _HEADER.match(line):
            break
    else:
        raise source.error(None, "no table header: expected a line 'Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs'")
    columns = _SPLIT.split(line.strip())
    unknown = [c for c in columns if c not in _KNOWN]
    missing = [c for c in _REQUIRED if c not in columns]
    if unknown or missing:
        what = f"unknown column {unknown[0]!r}" if unknown else f"missing column {missing[0]!r}"
        raise source.error(line_no, f"{what}; expected columns {', '.join(_REQUIRED)} [Measurements(us)]")
    return line_no, columns


class _Rows:
    """A table's rows made into nodes (and samples) as they are read."""

    def __init__(self, source: Source, parsed: Parsed, columns: list[str]) -> None:
        self.source, self.parsed, self.columns = source, parsed, columns
        self.index = {name: i for i, name in enumerate(columns)}
        self.total_us = 0.0  # a node with several outputs is printed once per output, its time repeated: counted once
        self.total_reported: float | None = None
        # a node's outputs printed so far: TVM prints them one after the other, but a name
        # may come again later. Held while the nodes are; once they spill, the output
        # indexes (and total) are counted again from the file (_node_file), and only the
        # last name is held here
        self.outputs_seen: dict[str, int] = {}
        self.last = ("", 0)
        self.cache: dict = {}

    def add(self, line_no: int, cells: list[str]) -> None:
        source, index, parsed = self.source, self.index, self.parsed
        if len(cells) != len(self.columns):
            raise source.error(line_no, f"expected {len(self.columns)} columns ({', '.join(self.columns)}), found "
                                        f"{len(cells)}: the row is truncated or not part of the table")
        node_name = cells[index["Node Name"]]
        shape_text = cells[index["Shape"]]
        if not _SHAPE.match(shape_text):
            raise source.error(line_no, f"expected a shape like (1, 64, 56, 56), found {shape_text!r}", field="Shape")
        time_us = _number(source, line_no, cells, index["Time(us)"], "Time(us)")
        output_index = self._output_index(node_name)
        node = derive(NodeRow(
            node_index=len(parsed.nodes),
            node_name=node_name,
            func_name=cells[index["Ops"]],
            time_us=time_us,
            output_index=output_index,
            reported_share_pct=_number(source, line_no, cells, index["Time(%)"], "Time(%)"),
            out_shape=[int(d) for d in re.findall(r"\d+", shape_text)],
            num_inputs=_integer(source, line_no, cells, index["Inputs"], "Inputs"),
            num_outputs=_integer(source, line_no, cells, index["Outputs"], "Outputs"),
            line_no=line_no,
        ), self.cache)
        self.total_us += time_us if output_index == 0 else 0.0
        if "Start Time" in index:
            node.start_us = _clock_us(source, line_no, cells[index["Start Time"]])
        parsed.nodes.append(node)
        if "Measurements(us)" in index:
            for k, value in enumerate(_measurements(source, line_no, cells[index["Measurements(us)"]])):
                parsed.samples.append(SampleRow(node.node_index, k, value))

    def _output_index(self, name: str) -> int:
        if self.parsed.nodes.spilled:
            self.outputs_seen.clear()
            last, count = self.last
            self.last = (name, count + 1 if name == last else 1)
            return self.last[1] - 1
        seen = self.outputs_seen.get(name, 0)
        self.outputs_seen[name] = seen + 1
        self.last = (name, seen + 1)
        return seen


CHECK_POOL = 64 * 2**20


def _node_file(source: Source, nodes: NodeList) -> tuple[NodeFile, float]:
    """The nodes of a table too large to hold, from their spill file, to a Parquet file the
    loader reads (rows.NodeFile): every node is a signature of its own (its name and output
    index are), numbered as the nodes are. Their output indexes were counted by name while
    the nodes were held, then by runs of a name (what TVM prints): a name that comes again
    after others is found here (two first outputs), and the indexes counted again by DuckDB.
    And the sum of the first outputs' times."""
    made = handed_over(lambda path: NodeFile(path, len(nodes)), lambda path: _write_nodes(nodes, path), "hotdb-table-")
    try:
        with tempfile.TemporaryDirectory(prefix="hotdb-check-") as spill, connect(temp_directory=spill) as con:
            # a pool of 64 MiB: beyond it the names' aggregate waits in `spill` (at 384 MiB,
            # DuckDB's default, it filled it: 256 MiB of table, 1.7 million names)
            con.execute("SET threads = 1")
            con.execute(f"SET memory_limit = '{int(CHECK_POOL)}B'")  # bytes, an int: never text from elsewhere
            again, total = con.execute(sql("read", "table_nodes_check"), {"path": str(made.path)}).fetchall()[0]
            if again:
                recounted = made.path.with_name("recounted.parquet")
                con.execute(sql("read", "table_nodes_recount"), {"path": str(made.path), "out": str(recounted)})
                recounted.replace(made.path)
                total = con.execute(sql("read", "table_nodes_check"), {"path": str(made.path)}).fetchall()[0][1]
    except duckdb.Error as exc:  # memory or disk, not the file: its rows were read
        raise source.error(None, f"the table's nodes could not be counted: {one_line(exc)}") from None
    return made, total


def _write_nodes(nodes: NodeList, path) -> None:
    """The nodes, in order, each its own signature (`signature_id` its index, `first`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = node_schema().append(pa.field("signature_id", pa.int32())).append(pa.field("first", pa.bool_()))
    with pq.ParquetWriter(str(path), schema) as writer:
        for frame in nodes.frames():
            writer.write_table(frame.append_column("signature_id", frame["node_index"]).append_column(
                "first", pa.repeat(pa.scalar(True), len(frame))))


def _variant(columns: list[str]) -> str:
    if "Start Time" in columns:
        return "legacy Start/End"
    if "Measurements(us)" in columns:
        return "with Measurements(us)"
    return "plain"


def _number(source: Source, line_no: int, cells: list[str], i: int, name: str) -> float:
    text = cells[i].replace(",", "")
    try:
        value = float(text)
    except ValueError:
        raise source.error(line_no, f"expected a number, found {cells[i]!r}", field=name) from None
    if value != value or value < 0 or value == float("inf"):
        raise source.error(line_no, f"expected a finite time >= 0, found {cells[i]!r}", field=name)
    return value


def _integer(source: Source, line_no: int, cells: list[str], i: int, name: str) -> int:
    try:
        value = int(cells[i])
    except ValueError:
        raise source.error(line_no, f"expected an integer, found {cells[i]!r}", field=name) from None
    if not 0 <= value <= INT32_MAX:
        raise source.error(line_no, f"expected an integer from 0 to 2^31 - 1, found {cells[i]!r}", field=name)
    return value


# a list of plain Python number literals, read without ast (a third of a row's reading);
# anything else ([1_000], [-1], [nan], (1, 2)) is read by literal_eval, as always
_PLAIN_LIST = re.compile(r"\[\s*(?:_N(?:\s*,\s*_N)*)?\s*\]".replace(
    "_N", r"(?:(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?|0+|[1-9]\d*)"))


def _measurements(source: Source, line_no: int, text: str) -> list[float]:
    if _PLAIN_LIST.fullmatch(text):
        values = [float(v) for v in text[1:-1].split(",")] if text[1:-1].strip() else []
    else:
        values = _literal_times(source, line_no, text)
    if any(v != v or v < 0 for v in values):
        raise source.error(line_no, f"expected times >= 0, found {text!r}", field="Measurements(us)")
    return values


def _literal_times(source: Source, line_no: int, text: str) -> list[float]:
    try:
        values = ast.literal_eval(text)
        return [float(v) for v in values]
    except (ValueError, SyntaxError, TypeError):
        raise source.error(line_no, f"expected a list of times like [25.7, 25.8], found {text!r}", field="Measurements(us)") from None


def _clock_us(source: Source, line_no: int, text: str) -> float:
    match = re.fullmatch(r"(\d+):(\d+):(\d+(?:\.\d+)?)", text)
    if not match:
        raise source.error(line_no, f"expected a clock time like 15:24:44.177475, found {text!r}", field="Start Time")
    h, m, s = match.groups()
    return ((int(h) * 60 + int(m)) * 60 + float(s)) * 1e6


def _check_total(source: Source, parsed: Parsed, count: int, total: float, total_reported: float | None) -> None:
    parsed.run.reported_total_us = total_reported
    if total_reported is None:
        parsed.warnings.append(f"{source.name}: no Total_time row; the table may be trimmed (sum of rows {total:.3f} us)")
    elif abs(total - total_reported) > max(_TOTAL_TOLERANCE * total_reported, 0.001 * count):
        parsed.warnings.append(
            f"{source.name}: Total_time {total_reported:.3f} us differs from the sum of rows {total:.3f} us "
            f"({100 * (total - total_reported) / total_reported:+.1f} %); rows may have been trimmed")
