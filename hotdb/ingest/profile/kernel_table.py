"""`kernel-table`: any printed table of kernel times, read by its columns (docs/formats.md).

    Name                                              Time (ms)   Count   Total time (ms)   Percentage (%)
    fused_layer_norm1_cast8                           0.3802      64      24.3335           25.90
    fused_decode6_fused_matmul9_add7_cast8_cast12_add50.9462      31      29.3330           31.23

MLC-LLM's and dlight's profilers (`print_as_table`, `benchmark_relax_func`), and tables like
them: a name column and a time column whose header states its unit (`us`, `(us)`, `Time(ms)`,
`Duration (us)`, `WxTime(ms)`, `s`). Count, total, percent, device and shape columns are read
where present; memory, bandwidth and other columns are passed over.

What a row's time is, is said by the header, never guessed from the numbers: a total column
(`Total time (ms)`, `WxTime(ms)`) is the time of all the row's calls; a per-call time (`Time`,
`Mean`, `Avg`) times the count is; TVM Report's `Duration` beside `Count` is already the sum
of the calls. NodeRow.time_us is that total, `calls` the count; RunInfo.variant says which.

Columns are separated by two or more spaces (or are Markdown `|` cells). MLC pads names to
50 characters, so a longer name runs into the time: `..._add50.9462` is `..._add5` at
0.9462 ms, the split that makes time x count equal the row's total. A comment or quote
prefix shared by the table's lines (`# `, `// `, `> `) is stripped; a TVM debug table or
Report behind one is read by its own reader. `Total` / `Sum` rows and a `Total time: X ms`
line after the table give the reported total.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from hotdb.ingest.source import Source
from hotdb.rows import INT32_MAX, NodeList, NodeRow, Parsed, RunInfo
from hotdb.rows.derive import derive

_PREFIX = re.compile(r"^[ \t]*(?:(?://|#|>)[ \t]?)*")
_SEGMENT = re.compile(r"\S+(?: \S+)*")  # a cell: words joined by single spaces
_UNIT = re.compile(r"(?i)^(?P<what>.*?)(?:\s*[(\[]\s*(?P<a>ns|us|µs|μs|ms|s|sec|secs)\s*[)\]]"
                   r"|(?:^|\s+)(?P<b>ns|us|µs|μs|ms|sec|secs|s))$")
_SCALE_US = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "μs": 1.0, "ms": 1e3, "s": 1e6, "sec": 1e6, "secs": 1e6}
_NAME = re.compile(r"(?i)^#?\s*(node\s*name|name|kernel(\s*name)?|op\s*name|opname|op|operator|"
                   r"function(\s*name)?|func(\s*name)?|prim\s*funcs?(\s+in\s+\S+)?|layer(\s*name)?)$")
_FUNC = re.compile(r"(?i)^(ops|func(tion)?(\s*name)?|prim\s*func|kernel(\s*name)?|symbol)$")
_COUNT = re.compile(r"(?i)^#?\s*(count|calls?|#\s*calls|num\s*calls|#\s*of\s*calls|invoke\s*count|invocations|"
                    r"times\s*called|exe\s*times|weight|repeats?)$")
_PERCENT = re.compile(r"(?i)(%|^percent(age)?\b|^pct\b|^share\b)")
_DEVICE = re.compile(r"(?i)^device$")
_SHAPE = re.compile(r"(?i)^(shapes?|argument\s*shapes|arg(ument)?s?\s*shapes?|input\s*shapes)$")
_NOT_A_TIME = re.compile(r"(?i)std|min|max|start|end|measure|sample|cdf|cumul")
_TOTAL_WORDS = re.compile(r"(?i)total|sum|^wx|weighted")
_NUMBER = re.compile(r"^[-+]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$|^(?i:[-+]?(nan|inf|infinity))$")
_TRAILING_NUMBER = re.compile(r"\d+(\.\d+)?$")
_TOTAL_LINE = re.compile(r"(?i)^\s*total(?:[ _](?:time|duration))?\s*[:=]?\s*(\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)"
                         r"\s*(ns|us|µs|μs|ms|sec|secs|s)\b")
_TOTAL_ROW = re.compile(r"(?i)^(total|total_time|sum)$")
_SEPARATOR = re.compile(r"^[\s\-=+|:]+$")
_DIMS = re.compile(r"(?:(\w+)\[([\d,\s]*)\])|\(([\d,\s]*)\)")
# Relative tolerance of the reported-total check: cells are rounded.
_TOTAL_TOLERANCE = 0.01


@dataclass
class _Column:
    label: str
    start: int
    end: int
    role: str | None = None  # name, func, per_call, total, count, percent, device, shape
    scale_us: float = 1.0


@dataclass
class _Table:
    at: int  # 0-based index of the header line
    end: int  # one past its last line
    prefix: str
    pipes: bool
    columns: list[_Column]

    def column(self, role: str) -> int | None:
        return next((i for i, c in enumerate(self.columns) if c.role == role), None)


class KernelTable:
    name = "kernel-table"
    role = "profile"
    reads = ("any printed table of kernel times by its columns: a name column and a time column with its unit "
             "in the header (MLC-LLM / dlight profilers: Name, Time (ms), Count, Total time (ms), Percentage (%)); "
             "comment prefixes (# , // , > ) stripped")
    detects = "a header with a name column (Name, Node Name, Kernel, Op, ...) and a time column naming its unit (Time (ms), Duration (us), Time(us), ...), rows under it"

    def sniff(self, source: Source) -> bool:
        return bool(_tables(source.head.splitlines()[:2000], first_only=True))

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        return [(table.at, table.end) for table in _tables(lines)]

    def parse(self, source: Source) -> Parsed:
        lines = source.lines
        tables = _tables(lines, first_only=False)
        if not tables:
            raise source.error(None, "no kernel table: expected a header with a name column and a time column that "
                                     "names its unit, e.g. 'Name  Time (ms)  Count  Total time (ms)', and rows under it")
        table = tables[0]
        parsed = _by_exact_reader(source, lines, table) or _read(source, lines, table)
        if len(tables) > 1:
            parsed.warnings.append(f"{source.name}: {len(tables) - 1} more tables after line {table.end} were not read "
                                   "(ingest the file without --format to read each table as a run)")
        return parsed


def _tables(lines: list[str], first_only: bool = False) -> list[_Table]:
    """Each header with at least one row under it, and where its table ends."""
    out, i = [], 0
    while i < len(lines):
        table = _header(lines[i], i) if _has_unit(lines[i]) else None
        if table is not None:
            rows = _extent(lines, table)
            if rows:
                out.append(table)
                if first_only:
                    break
                i = table.end
                continue
        i += 1
    return out


def _has_unit(line: str) -> bool:
    """A cheap look before a line is taken apart as a header."""
    return bool(re.search(r"(?i)([(\[]\s*(ns|us|µs|μs|ms|s|sec|secs)\s*[)\]]|(?<![\w/])(ns|us|µs|μs|ms|sec|secs)\b)", line))


def _header(line: str, at: int) -> _Table | None:
    prefix = _PREFIX.match(line).group()
    body = line[len(prefix):]
    pipes = body.strip().startswith("|")
    if pipes:
        labels = [(0, 0, cell.strip()) for cell in body.strip().strip("|").split("|")]
    else:
        labels = [(m.start(), m.end(), m.group()) for m in _SEGMENT.finditer(body)]
    if len(labels) < 2 or any(_NUMBER.match(text) for _, _, text in labels):
        return None
    columns = [_column(text, start, end) for start, end, text in labels]
    names = [c for c in columns if c.role == "name"]
    for extra in names[1:]:
        extra.role = "func" if _FUNC.match(extra.label) else None
    if not names or not any(c.role in ("per_call", "total") for c in columns):
        return None
    _one_of_each(columns)
    return _Table(at, at + 1, prefix, pipes, columns)


def _column(label: str, start: int, end: int) -> _Column:
    column = _Column(label, start, end)
    unit = _UNIT.match(label)
    if _NAME.match(label):
        column.role = "name"
    elif _FUNC.match(label):
        column.role = "func"
    elif unit and not _NOT_A_TIME.search(unit.group("what")):
        column.role = "total" if _TOTAL_WORDS.search(unit.group("what")) else "per_call"
        column.scale_us = _SCALE_US[(unit.group("a") or unit.group("b")).lower().replace("μ", "µ")]
    elif _COUNT.match(label):
        column.role = "count"
    elif _PERCENT.search(label):
        column.role = "percent"
    elif _DEVICE.match(label):
        column.role = "device"
    elif _SHAPE.match(label):
        column.role = "shape"
    return column


def _one_of_each(columns: list[_Column]) -> None:
    """The first column of each role is read; a median is a per-call time only where no mean is."""
    per_call = [c for c in columns if c.role == "per_call"]
    preferred = next((c for c in per_call if "median" not in c.label.lower()), per_call[0] if per_call else None)
    seen: set[str] = set()
    for column in columns:
        if column.role == "per_call" and column is not preferred:
            column.role = None
        elif column.role in seen:
            column.role = None
        elif column.role:
            seen.add(column.role)


def _extent(lines: list[str], table: _Table) -> int:
    """Rows of the table (setting table.end past its last line, Total lines included)."""
    rows, i = 0, table.at + 1
    while i < len(lines):
        body = _body(lines[i], table.prefix)
        if body is None or (not body.strip() and rows):
            break
        if not body.strip() or _SEPARATOR.match(body):
            i += 1
            continue
        if _TOTAL_LINE.match(body):
            i += 1
            break
        if _cells(body, table) is None:
            break
        rows += 1
        i += 1
    while i > table.at + 1 and not (_body(lines[i - 1], table.prefix) or "").strip():
        i -= 1
    table.end = i
    return rows


def _body(line: str, prefix: str) -> str | None:
    """The line without the table's prefix; None where the line lacks it."""
    if line.startswith(prefix):
        return line[len(prefix):]
    return "" if line.rstrip() == prefix.rstrip() else None


def _cells(body: str, table: _Table) -> tuple[list[str], bool] | None:
    """A row's cells, and whether its name ran into the next cell; None: not a row of this table."""
    n = len(table.columns)
    if table.pipes:
        if not body.strip().startswith("|"):
            return None
        cells, glued = [c.strip() for c in body.strip().strip("|").split("|")], False
        if len(cells) != n:
            return None
    else:
        segments = [(m.start(), m.end(), m.group()) for m in _SEGMENT.finditer(body)]
        if len(segments) > 2 * n:
            return None  # far more cells than labels: no row of this table (placing each was a long line's minutes)
        if len(segments) == n - 1 and table.columns[0].role == "name":
            segments = _one_space_apart(segments)
        glued = (len(segments) == n - 1 and table.columns[0].role == "name" and
                 segments[0][1] > table.columns[1].start and bool(_TRAILING_NUMBER.search(segments[0][2])))
        if len(segments) == n or glued:
            cells = [text for _, _, text in segments]
        else:
            cells = _by_position(segments, table.columns)
    name = cells[table.column("name")] if not glued else cells[0]
    times = [cells[i] for i in (table.column("per_call"), table.column("total")) if i is not None and i < len(cells)]
    if glued:
        times.append(_TRAILING_NUMBER.search(cells[0]).group())
    if not name or not any(_NUMBER.match(t) for t in times):
        return None
    return cells, glued


def _by_position(segments, columns: list[_Column]) -> list[str]:
    """Cells of a row with missing cells: each under the header label it overlaps most (cells
    are left- or right-aligned under their label), or the nearest one."""
    parts: list[list[str]] = [[] for _ in columns]  # joined once: appending to a string was quadratic in a long line
    for start, end, text in segments:
        best = min(range(len(columns)), key=lambda i: _distance(start, end, columns[i]))
        parts[best].append(text)
    return [" ".join(texts) for texts in parts]


def _one_space_apart(segments: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A name one character short of its column's width leaves one space before the time
    (MLC pads names to 50): `name 0.9462` is two cells."""
    start, end, text = segments[0]
    name, space, last = text.rpartition(" ")
    if not space or not _NUMBER.match(last):
        return segments
    return [(start, start + len(name), name), (end - len(last), end, last)] + segments[1:]


def _distance(start: int, end: int, column: _Column) -> tuple[int, int]:
    overlap = min(end, column.end) - max(start, column.start)
    return (0, -overlap) if overlap > 0 else (1, max(column.start - end, start - column.end))


def _by_exact_reader(source: Source, lines: list[str], table: _Table) -> Parsed | None:
    """A debug table or Report behind a comment prefix: its own reader reads it, unprefixed."""
    from hotdb.ingest.profile.debug_table import DebugTable
    from hotdb.ingest.profile.profile_report import ProfileReport

    if not table.prefix:
        return None
    text = "\n".join(_body(line, table.prefix) or "" for line in lines[table.at:table.end]) + "\n"
    alone = dataclasses.replace(source, data=text.encode(), streamed_size=None)
    in_place = dataclasses.replace(source, data=("\n" * table.at + text).encode(), streamed_size=None)  # the file's line numbers
    for reader in (DebugTable(), ProfileReport()):
        if reader.sniff(alone):
            parsed = reader.parse(in_place)
            parsed.run.variant = f"{reader.name} {parsed.run.variant or ''}".strip() + f", behind the prefix {table.prefix.lstrip()!r}"
            return parsed
    return None


def _read(source: Source, lines: list[str], table: _Table) -> Parsed:
    parsed = Parsed(role="profile", nodes=NodeList(source), run=RunInfo(variant=_variant(table)))
    totals: dict[str, float] = {}
    rows_us = 0.0
    derived: dict = {}
    for line_no, line in enumerate(lines[table.at + 1:table.end], start=table.at + 2):
        body = _body(line, table.prefix) or ""
        if not body.strip() or _SEPARATOR.match(body):
            continue
        if m := _TOTAL_LINE.match(body):
            totals["line"] = _value(source, line_no, m.group(1), "Total") * _SCALE_US[m.group(2).lower()]
            continue
        cells, glued = _cells(body, table)
        if glued:
            cells = _unglue(source, line_no, cells, table, parsed.warnings)
        name = cells[table.column("name")]
        if _TOTAL_ROW.match(name):
            if (value := _total_row(source, line_no, cells, table)) is not None:
                totals.setdefault(name.lower(), value)
            continue
        node = _node(source, line_no, cells, table, len(parsed.nodes), derived)
        rows_us += node.time_us
        parsed.nodes.append(node)
    if not parsed.nodes:
        raise source.error(table.at + 1, "the table has a header but no kernel rows")
    reported = totals.get("line", totals.get("total", totals.get("total_time", totals.get("sum"))))
    _check_total(source, parsed, rows_us, reported)
    return parsed


def _variant(table: _Table) -> str:
    label = {role: table.columns[i].label for role in ("per_call", "total", "count")
             if (i := table.column(role)) is not None}
    if "total" in label:
        said = f"row time from '{label['total']}' (all its calls)"
    elif "count" in label and label["per_call"].lower().startswith("duration"):
        said = f"row time from '{label['per_call']}' (a Report's sum over its calls)"
    elif "count" in label:
        said = f"row time = '{label['per_call']}' per call x '{label['count']}'"
    else:
        said = f"row time from '{label['per_call']}' (one call per row)"
    if "count" in label:
        said += f", calls from '{label['count']}'"
    if table.prefix.strip():
        said += f", behind the prefix {table.prefix.lstrip()!r}"
    return f"kernel table: {said}"


def _unglue(source: Source, line_no: int, cells: list[str], table: _Table, warnings: list[str]) -> list[str]:
    """Split a name that ran into the next (numeric) cell. Every split that leaves the name at
    least as wide as its column is a candidate; the one whose per-call time x count equals the
    row's total wins, else the shortest number (kernel names end in digits far more often
    than times begin with padding)."""
    glued, rest = cells[0], cells[1:]
    width = table.columns[1].start - table.columns[0].start
    tail = _TRAILING_NUMBER.search(glued)  # the digits the name and the number share
    last = glued.rfind(".") if tail.group(1) else len(glued)  # never cut into the decimals
    candidates = [p for p in range(max(tail.start(), width, 1), last)
                  if not (glued[p] == "0" and glued[p + 1:p + 2].isdigit())]
    candidates.sort(key=lambda p: len(glued) - p)
    if not candidates:
        raise source.error(line_no, f"expected a name and a number run together, found {glued!r}")
    for p in candidates:
        split = [glued[:p], glued[p:]] + rest
        if _consistent(split, table):
            return split
    checkable = table.column("total") is not None and table.column("count") is not None and table.column("per_call") == 1
    if checkable:
        warnings.append(f"{source.name}:{line_no}: the name ran into the time ({glued!r}) and no split makes time x count "
                        "equal the total; split before the shortest number")
    return [glued[:candidates[0]], glued[candidates[0]:]] + rest


def _consistent(cells: list[str], table: _Table) -> bool:
    """Whether per-call time x count is the row's total, to the cells' rounding."""
    per_i, count_i, total_i = table.column("per_call"), table.column("count"), table.column("total")
    if None in (per_i, count_i, total_i):
        return False
    try:
        per, count, total = (float(cells[i].replace(",", "")) for i in (per_i, count_i, total_i))
    except (ValueError, IndexError):
        return False
    tolerance = count * _half_unit(cells[per_i]) * table.columns[per_i].scale_us / table.columns[total_i].scale_us
    tolerance += _half_unit(cells[total_i])
    return abs(per * count * table.columns[per_i].scale_us / table.columns[total_i].scale_us - total) <= tolerance + 1e-9


def _half_unit(text: str) -> float:
    decimals = len(text.partition(".")[2]) if "." in text else 0
    return 0.5 * 10 ** -decimals


def _total_row(source: Source, line_no: int, cells: list[str], table: _Table) -> float | None:
    """A Total / Sum row's time (us): its total cell, else its time cell; None where neither is a number."""
    for i in (table.column("total"), table.column("per_call")):
        if i is not None and _NUMBER.match(cells[i]):
            return _value(source, line_no, cells[i], table.columns[i].label) * table.columns[i].scale_us
    return None


def _row_total(source: Source, line_no: int, cells: list[str], table: _Table) -> tuple[float, int]:
    """The time of all the row's calls (us) and their count."""
    count_i, total_i, per_i = table.column("count"), table.column("total"), table.column("per_call")
    count = 1
    if count_i is not None:
        count = _count(source, line_no, cells[count_i], table.columns[count_i].label)
    if total_i is not None and (_NUMBER.match(cells[total_i]) or per_i is None):
        return _value(source, line_no, cells[total_i], table.columns[total_i].label) * table.columns[total_i].scale_us, count
    per = _value(source, line_no, cells[per_i], table.columns[per_i].label) * table.columns[per_i].scale_us
    if table.columns[per_i].label.lower().startswith("duration"):
        return per, count  # TVM Report: an aggregated row's Duration is the sum of its calls
    return per * count, count


def _node(source: Source, line_no: int, cells: list[str], table: _Table, index: int, derived: dict) -> NodeRow:
    name = cells[table.column("name")]
    time_us, calls = _row_total(source, line_no, cells, table)
    func_i, pct_i, device_i, shape_i = (table.column(r) for r in ("func", "percent", "device", "shape"))
    node = NodeRow(node_index=index, node_name=name, func_name=(cells[func_i] if func_i is not None else "") or name,
                   time_us=time_us, calls=max(calls, 1), line_no=line_no,
                   device=(cells[device_i] or None) if device_i is not None else None)
    if pct_i is not None and _NUMBER.match(cells[pct_i]):
        node.reported_share_pct = _value(source, line_no, cells[pct_i], table.columns[pct_i].label)
    if shape_i is not None:
        _shapes(source, line_no, cells[shape_i], node)
    return derive(node, derived)


def _value(source: Source, line_no: int, text: str, field: str) -> float:
    try:
        value = float(text.replace(",", "").rstrip("%"))
    except ValueError:
        raise source.error(line_no, f"expected a number, found {text!r}", field=field) from None
    if not (value >= 0 and math.isfinite(value)):
        raise source.error(line_no, f"expected a finite number >= 0, found {text!r}", field=field)
    return value


def _count(source: Source, line_no: int, text: str, field: str) -> int:
    try:
        value = int(text.replace(",", ""))
    except ValueError:
        raise source.error(line_no, f"expected a count (an integer), found {text!r}", field=field) from None
    if not 0 <= value <= INT32_MAX:
        raise source.error(line_no, f"expected a count from 0 to 2^31 - 1, found {text!r}", field=field)
    return value


def _shapes(source: Source, line_no: int, text: str, node: NodeRow) -> None:
    """`(1, 1001, 4096), (4096, 4096), (1, 1001, 4096)` or `float32[1, 64]`: the arguments,
    inputs then the output (dlight and MLC print every argument; one shape is the output)."""
    found = _DIMS.findall(text)
    if not found:
        return
    shapes = [[int(d) for d in re.findall(r"\d+", dims or plain)] for _, dims, plain in found]
    if any(d > INT32_MAX for shape in shapes for d in shape):
        raise source.error(line_no, f"expected dimensions below 2^31, found {text[:60]!r}", field="Shape")
    dtypes = [dtype for dtype, _, _ in found]
    node.out_shape, node.out_dtype = shapes[-1], dtypes[-1] or None
    if len(shapes) > 1:
        node.input_shapes, node.num_inputs = shapes[:-1], len(shapes) - 1
        node.input_dtypes = dtypes[:-1] if all(dtypes) else None


def _check_total(source: Source, parsed: Parsed, total: float, reported: float | None) -> None:
    parsed.run.reported_total_us = reported
    if reported is None or reported <= 0:
        return
    if abs(total - reported) > _TOTAL_TOLERANCE * reported:
        parsed.warnings.append(f"{source.name}: the reported total {reported:.3f} us differs from the sum of rows "
                               f"{total:.3f} us ({100 * (total - reported) / reported:+.1f} %); rows may have been trimmed")
