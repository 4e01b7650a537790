"""`profile-report`: `tvm.runtime.profiling.Report` as JSON, CSV or printed table (docs/formats.md).

Graph executor (`debug_executor.profile()`), VM and Relax VM reports. Per call: Name (the
kernel symbol), Duration (us), Count, Device, Argument Shapes (inputs then the output,
`float32[1, 64, 56, 56], ...`), Hash, layout attributes. The printed table aggregates
calls (Count > 1) and uses thousands separators; JSON and CSV have one row per call.
VM builtins (`VM::AllocStorage`, `vm.builtin.*`) are kept but marked as non-kernels.

The JSON's `device_metrics` and the table's `Total` rows give each device's total time,
which TVM's own `Percent` is relative to. Time a device total holds beyond the calls
listed (a report of selected calls, gaps between calls) becomes one node,
`(rest of <device> total)`, so that a call's share is against the device total: 12.3 us
of a 334.2 us total is 3.7 %, not 100 %.

A report of counters only (PAPI, `perf::CYCLES`) has no times to rank: it is refused,
naming the columns it has.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from collections.abc import Iterator

from hotdb.ingest.profile.report.device_totals import device_totals, rest_nodes
from hotdb.ingest.profile.report.values import METRIC_KEYS, count_of, metric_text, time_of
from hotdb.ingest.source import Source
from hotdb.rows import INT32_MAX, NodeList, NodeRow, Parsed, RunInfo
from hotdb.rows.derive import derive

_ARG = re.compile(r"(\w+)\[([\d,\s]*)\]")
_TABLE_HEADER = re.compile(r"^\s*Name\s+Duration \(us\)\s+Percent\s+Device\s+Count")
# A Report table whatever its metrics (a PAPI report has counters and no Duration)
_ANY_TABLE_HEADER = re.compile(r"^\s*Name(\s{2,}\S+)+\s*$")
_BUILTIN = re.compile(r"^(VM::|vm\.builtin\.|__nop$|__copy$)")


class ProfileReport:
    name = "profile-report"
    role = "profile"
    reads = "tvm.runtime.profiling.Report as .json(), .csv() or printed table (graph executor, VM, Relax VM)"
    detects = "JSON with \"calls\" and \"device_metrics\"; a CSV header with 'Duration (us)' and 'Name'; a table header 'Name  Duration (us)  Percent  Device  Count'"

    def sniff(self, source: Source) -> bool:
        head = source.head.lstrip()
        if head.startswith("{") and '"calls"' in head[:2000]:
            return True
        lines = head.splitlines()[:100]
        if lines and "Duration (us)" in lines[0] and "Name" in lines[0] and "," in lines[0]:
            return True
        if any(_TABLE_HEADER.match(line) for line in lines):
            return True
        return _counter_table(lines) is not None

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Printed tables (a JSON or CSV report is a file of its own): header, rows, the
        Sum and Total rows, and the Configuration part after them."""
        out = []
        for i, line in enumerate(lines):
            if not (_TABLE_HEADER.match(line) or (_ANY_TABLE_HEADER.match(line) and _counter_table(lines[i:i + 400]))):
                continue
            end = i + 1
            while end < len(lines) and lines[end].strip():
                end += 1
            after = end
            while after < len(lines) and not lines[after].strip():
                after += 1
            if after < len(lines) and lines[after].strip() == "Configuration":
                end = after + 1
                while end < len(lines) and (re.match(r"^\s*-+\s*$", lines[end]) or re.match(r"^[\w ]+: ", lines[end])):
                    end += 1
            out.append((i, end))
        return out

    def parse(self, source: Source) -> Parsed:
        if source.streamed_size is not None:
            return _parse_streamed(source)
        text = source.text.lstrip("\ufeff")
        stripped = text.lstrip()
        first_line = text.splitlines()[0] if text else ""
        totals: dict[str, float] = {}
        if stripped.startswith("{"):
            (calls, totals), config, variant = _from_json(source, stripped), None, "json"
        elif "Duration (us)" in first_line and "," in first_line:
            calls, config, variant = _from_csv(source, text), None, "csv"
        else:
            calls, totals, config = _from_table(source)
            variant = "table"
        # the nodes as Arrow, each call's dict dropped once it is a node: a report of
        # distinct calls held ~3 KB of Python objects a call (bench/README.md)
        parsed = Parsed(role="profile", nodes=NodeList(source), run=RunInfo(variant=f"report {variant}"))
        derived: dict = {}
        for index, (line_no, call) in enumerate(calls):
            parsed.nodes.append(_node(source, index, line_no, call, derived))
            if isinstance(calls, list):
                calls[index] = None
        if not parsed.nodes:
            raise source.error(None, "the report has no calls")
        _rest_of_totals(parsed, totals, len(parsed.nodes))
        devices = sorted({n.device for n in parsed.nodes if n.device})
        parsed.run.device = ",".join(devices) or None
        if isinstance(config, dict) and config.get("Executor"):
            parsed.run.variant += f", {config['Executor']} executor"
        return parsed


def _parse_streamed(source: Source) -> Parsed:
    """A report too large to hold: DuckDB reads a CSV, Python decodes a JSON call by call;
    each distinct signature is canonicalised once."""
    from hotdb.ingest.profile.report import streamed_csv as bulk
    from hotdb.ingest.profile.report import streamed_json as report_json

    head = source.head.lstrip("\ufeff").lstrip()
    make_node = lambda line_no, call: _node(source, 0, line_no, call)  # noqa: E731
    if source.data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        table = variant = None  # DuckDB reads UTF-8 only
    elif head.startswith("{"):
        table, variant = report_json.read_report_json(source, make_node), "json"
    elif "Duration (us)" in head.partition("\n")[0] and "," in head.partition("\n")[0]:
        table, variant = bulk.read_report_csv(source, make_node), "csv"
    else:
        table = variant = None  # a printed table aggregates calls, so it is never large
    if table is None:
        return ProfileReport().parse(Source(source.path, source.content))
    parsed = Parsed(role="profile", run=RunInfo(variant=f"report {variant}", reported_total_us=table.reported_total_us),
                    node_table=table)
    parsed.run.device = ",".join(table.devices) or None
    return parsed


def _rest_of_totals(parsed: Parsed, totals: dict[str, float], rows: int) -> None:
    """A node per device whose total holds more than its calls (beyond the report's rounding)."""
    if not totals:
        return
    by_device: dict[str | None, float] = {}
    for node in parsed.nodes:
        by_device[node.device] = by_device.get(node.device, 0.0) + node.time_us
    parsed.run.reported_total_us = sum(totals.values())
    parsed.nodes.extend(rest_nodes(totals, by_device, rows, first_index=len(parsed.nodes)))


def _counter_table(lines: list[str]) -> list[str] | None:
    """The columns of a Report table that has metrics but no Duration (us), if this is one."""
    for i, line in enumerate(lines):
        if _ANY_TABLE_HEADER.match(line) and "Duration (us)" not in line:
            rest = lines[i + 1:i + 400]
            if any(r.startswith("----------") for r in rest) and any(re.match(r"^(Sum|Total)\s{2,}", r) for r in rest):
                return re.split(r"\s{2,}", line.strip())
    return None


def _node(source: Source, index: int, line_no: int | None, call: dict, derived: dict | None = None) -> NodeRow:
    name = (metric_text(call.get("Name")) or "").strip()
    time_us = time_of(source, line_no, call.get("Duration (us)"))
    count = count_of(source, line_no, call.get("Count", 1))
    shapes, dtypes = _argument_shapes(source, line_no, call.get("Argument Shapes"))
    layouts = {k: metric_text(v) for k, v in call.items() if "layout" in k and metric_text(v)}
    node = derive(NodeRow(
        node_index=index, node_name=name or "(unnamed)", func_name=name or "(unnamed)", time_us=time_us,
        calls=max(count, 1),
        input_shapes=shapes[:-1] if shapes else None, input_dtypes=dtypes[:-1] if dtypes else None,
        out_shape=shapes[-1] if shapes else None, out_dtype=dtypes[-1] if dtypes else None,
        num_inputs=len(shapes) - 1 if shapes else None, device=metric_text(call.get("Device")), line_no=line_no,
        kernel_hash=metric_text(call.get("Hash")), layouts=json.dumps(layouts, sort_keys=True) if layouts else None,
        is_kernel=not _BUILTIN.match(name),
    ), derived)
    if not node.is_kernel:
        node.kernel_family = "vm_builtin"
    return node


def _argument_shapes(source: Source, line_no, text) -> tuple[list[list[int]], list[str]]:
    if not text:
        return [], []
    found = _ARG.findall(str(text))
    if not found:
        raise source.error(line_no, f"expected shapes like float32[1, 64, 56, 56], found {str(text)[:40]!r}", field="Argument Shapes")
    shapes = [[int(d) for d in re.findall(r"\d+", dims)] for _, dims in found]
    if any(d > INT32_MAX for shape in shapes for d in shape):
        raise source.error(line_no, f"expected dimensions below 2^31, found {str(text)[:60]!r}", field="Argument Shapes")
    return shapes, [dtype for dtype, _ in found]


def _from_json(source: Source, text: str) -> tuple[Iterator[tuple[int | None, dict]], dict[str, float]]:
    try:
        report = json.loads(text, strict=False)
    except json.JSONDecodeError as exc:
        raise source.error(exc.lineno, f"expected a Report JSON object: {exc.msg} at column {exc.colno}") from None
    if not isinstance(report, dict) or not isinstance(report.get("calls"), list):
        raise source.error(None, "expected {\"calls\": [...], \"device_metrics\": {...}}", field="calls")
    return _json_calls(source, report.pop("calls")), device_totals(report.get("device_metrics"))


def _json_calls(source: Source, calls: list) -> Iterator[tuple[int | None, dict]]:
    """Each call flattened ({"microseconds": 12.5} -> 12.5), its decoded object dropped
    from the list once flattened."""
    for i, call in enumerate(calls):
        calls[i] = None
        if not isinstance(call, dict):
            raise source.error(None, f"call {i} is not an object", field=f"calls[{i}]")
        flat = {}
        for key, metric in call.items():
            if isinstance(metric, dict) and len(metric) == 1 and next(iter(metric)) in METRIC_KEYS:
                flat[key] = next(iter(metric.values()))
            else:
                flat[key] = metric
        if "Duration (us)" not in flat:
            raise source.error(None, f"call {i} has no 'Duration (us)'", field=f"calls[{i}]")
        yield None, flat


def _from_csv(source: Source, text: str) -> Iterator[tuple[int | None, dict]]:
    """The calls, row by row as read: io.StringIO would hold the text again, 4 bytes a
    character."""
    reader = csv.reader(_lines_kept_ends(text))
    try:
        header = next(reader)
    except csv.Error as exc:  # the words of the large-file reader (bulk.read_report_csv)
        raise source.error(1, f"expected a CSV header: {exc}") from None
    if "Duration (us)" not in header or "Name" not in header:
        raise source.error(1, "expected a header with 'Name' and 'Duration (us)'")
    try:
        for line_no, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise source.error(line_no, f"expected {len(header)} fields ({', '.join(header)}), found {len(row)}")
            yield line_no, dict(zip(header, row))
    except csv.Error as exc:  # e.g. a carriage return alone inside an unquoted field
        raise source.error(reader.line_num, f"the file is malformed: {exc}") from None


def _lines_kept_ends(text: str) -> Iterator[str]:
    """The text's lines with their ends, cut at \\n only (as iterating io.StringIO(text))."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start) + 1 or size
        yield text[start:end]
        start = end


def _from_table(source: Source):
    lines = source.lines
    at = next((i for i, line in enumerate(lines) if _TABLE_HEADER.match(line)), None)
    if at is None:
        counters = _counter_table(lines)
        if counters is not None:
            raise source.error(None, "the report has no 'Duration (us)' column, only counters ("
                               + ", ".join(counters[1:6]) + (", ..." if len(counters) > 6 else "")
                               + "): hotdb ranks kernels by time; profile with the default collectors (times) as well")
        raise source.error(None, "no report header 'Name  Duration (us)  Percent  Device  Count ...'")
    header = lines[at]
    columns = re.split(r"\s{2,}", header.strip())
    ends, position = [], 0
    for column in columns:  # search onwards: "layout" is also inside "data_layout"
        position = header.index(column, position) + len(column)
        ends.append(position)
    calls = []
    config: dict[str, str] = {}
    totals: dict[str, float] = {}
    line_no = at + 1
    rows_end = None
    for line_no, line in enumerate(lines[at + 1:], start=at + 2):
        if not line.strip():
            break
        first = line.split()[0]
        if first == "Total" and "Device" in columns:  # one Total row per device
            cells = dict(zip(columns, _cells(line, ends, first)))
            try:
                totals[cells["Device"]] = float(cells["Duration (us)"].replace(",", ""))
            except (KeyError, ValueError):
                pass
            continue
        if first.startswith("---") or first == "Sum":
            rows_end = rows_end or line_no
            continue
        if rows_end is not None:
            break
        name = "" if line[:1].isspace() else first  # aggregated rows of different kernels have no name
        cells = _cells(line, ends, name)
        if len(line.rstrip()) > ends[-1] + 2 and columns[-1] != "Argument Shapes":
            raise source.error(line_no, "row is wider than the header: columns do not line up")
        calls.append((line_no, dict(zip(columns, cells))))
    for line in lines[line_no:]:
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("Number of threads", "Executor"):
            config[key.strip()] = value.strip()
    return calls, totals, config


def _cells(line: str, ends: list[int], name: str) -> list[str]:
    """A table row cut at the header's column ends (cells are right-aligned under them)."""
    cells, previous = [name], len(name)
    for end in ends[1:]:
        cells.append(line[previous:end].strip())
        previous = end
    return cells
