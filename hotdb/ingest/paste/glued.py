"""Tables whose rows a page ran together, split into rows again (a rule of unrender.py).

A forum that shows a table outside a code block joins its lines into one paragraph (and
may collapse its padding into single spaces); a page copied without its line breaks glues
the end of each row onto the start of the next (`... 3       1fused_nn_conv2d_1 ...`).
The header says what the table is: its columns, read label by label (`Node Name`, `Ops`,
`Time(us)`, ..., `Name`, `Duration (us)`, ..., ` ID | Name | FLOP | ...`), give the pattern
of a row (a name, numbers, a shape, a device, a list), and each row is found where that
pattern matches again after the last. The table is printed again as its printer lays it
out (cells padded into columns, one row a line) for its reader; the text before the
header and after the last row keeps lines of its own.

    debug-table   Node Name Ops Time(us) Time(%) Shape Inputs Outputs [Measurements(us)]
                  (or Start Time, End Time); the Total_time row
    Report        Name Duration (us) Percent Device Count Argument Shapes [Hash]; the ----------,
                  Sum and Total rows (cells right-aligned under their labels)
    kernel table  Name and columns whose labels name a unit: Time (ms), Count, Total time (ms),
                  Percentage (%), Memory (MB), Shape
    MetaSchedule  ID | Name | FLOP | Weight | Speed (GFLOPS) | Latency (us) | ... | Trials | Done;
                  its rules of dashes, Total trials, Total latency (us)

A table whose rows are each on a line of their own is left as it is, whatever its spacing.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_NAME = r"[A-Za-z_][\w.\-/@:]*"
_NUMBER = r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
_SHAPE = r"\((?:\s*\d+\s*(?:,\s*\d+\s*)*,?)?\)"
_CELLS = {
    "name": _NAME,
    "number": _NUMBER,
    "maybe": rf"{_NUMBER}|N/A",
    "int": r"\d+",
    "shapes": rf"{_SHAPE}(?:,\s*{_SHAPE})*",
    "list": r"\[[^\[\]]*\]",
    "clock": r"\d{1,2}:\d{2}:\d{2}(?:\.\d+)?",
    "device": r"[a-z_]+\d+",
    "arguments": r"\w+\[[\d, ]*\](?:,\s*\w+\[[\d, ]*\])*",
    "hash": r"[0-9a-f]{16}",
    "flag": r"[YN]?",
}
# Column labels (the longest that matches is taken); any run of blanks between words
_KNOWN = r"(?:Node|Name|Ops|Shape|Inputs|Outputs|Percent|Device|Count|Hash|ID|FLOP|Weight|Trials|Done)\b"
_LABELS = [(re.compile(label.replace("_KNOWN", _KNOWN).replace(" ", r"\s+")), cell) for label, cell in [
    (r"Node Name", "name"), (r"Ops", "name"), (r"Time\(us\)", "number"), (r"Time\(%\)", "number"),
    (r"Start Time", "clock"), (r"End Time", "clock"), (r"Shape", "shapes"), (r"Inputs", "int"),
    (r"Outputs", "int"), (r"Measurements\(us\)", "list"),
    (r"Name", "name"), (r"Duration \(us\)", "number"), (r"Percent(?:age \(%\))?", "number"), (r"Device", "device"),
    (r"Count", "int"), (r"Argument Shapes", "arguments"), (r"Hash", "hash"),
    (r"ID", "int"), (r"FLOP", "int"), (r"Weight", "int"), (r"Trials", "int"), (r"(?:Done|Terminated)", "flag"),
    # any other label that names its unit (`Total time (ms)`, `Weighted Latency (us)`), none
    # of whose words is a label of its own
    (r"(?:(?!_KNOWN)[A-Z][A-Za-z]* )*(?:(?!_KNOWN)[A-Za-z]+ )?(?!_KNOWN)[A-Za-z]+\s*\((?:ns|us|µs|ms|s|%|MB|GB/s|GFLOPS)\)",
     "maybe"),
]]
# Where a table may begin: the first label of each kind
_STARTS = re.compile(r"Node\s+Name\s+Ops|Name\s+(?:Duration|Time|Count)|\bID\s*\|\s*Name\s*\|")
_DASHES = re.compile(r"-{3,}(?:[ \t]+-{2,})*")
_TOTAL = re.compile(rf"(?:Total_time|Total|Sum)(?:[ \t]+(?:-|{_NUMBER}|{_CELLS['device']})(?![\d.,]))+")
_FOOTER = re.compile(r"Total trials:\s*\d+(?:\s*/\s*\d+)?|Total latency \(us\):\s*\S+?(?=\s|$)"
                     rf"|Total time:\s*{_NUMBER}\s*(?:ns|us|ms|s)\b")
_GAP = re.compile(r"[ \t]*\n?[ \t]*")  # between two rows: blanks, one line end at most


@dataclass
class _Table:
    labels: list[str]
    cells: list[str]  # each column's cell kind
    pipes: bool

    @property
    def right(self) -> bool:
        """Whether the printer right-aligns the cells (a Report, MetaSchedule's table)."""
        return self.pipes or "Duration (us)" in self.labels


def found(text: str) -> bool:
    """The whole-text test: a table's first labels somewhere in the text."""
    return bool(_STARTS.search(text))


def split(lines: list[str]) -> tuple[list[str], list[int], int] | None:
    """The lines with every table a page ran together printed a row a line; for each line
    the 0-based index of the line it came from; the count of lines that held glued rows.
    None where no table was glued."""
    tables, after = [], 0
    for at in (i for i, line in enumerate(lines) if "Name" in line and _STARTS.search(line)):  # every start has Name
        if at >= after and (done := _table_at(lines, at)) is not None:
            tables.append((at, *done))
            after = done[2]
    if not tables:
        return None
    out, origin, count, i = [], [], 0, 0
    for at, new, where, end, glued in tables:
        out.extend(lines[i:at])
        origin.extend(range(i, at))
        out.extend(new)
        origin.extend(where)
        count += glued
        i = end
    out.extend(lines[i:])
    origin.extend(range(i, len(lines)))
    return out, origin, count


def _table_at(lines: list[str], at: int):
    """The glued table whose header is on line `at`, printed again: (lines, their origins,
    the index after its last line, the count of glued lines); None where no table begins
    there or its rows are each on a line already. A page glues every row alike: whether it
    glued these is decided on the table's first lines, so that a clean table of any length
    costs a few lines' look."""
    probe = at + 1
    while probe < len(lines) and probe < at + _PROBE_LINES and lines[probe].strip():
        probe += 1
    if _region(lines, at, probe) is None:
        return None
    end = probe
    while end < len(lines) and lines[end].strip():
        end += 1  # a table never crosses a blank line
    return _region(lines, at, end)


_PROBE_LINES = 4


def _region(lines: list[str], at: int, end: int):
    """The table whose header is on line `at`, in lines `at` to `end`, as `_table_at` says."""
    text = "\n".join(lines[at:end])
    starts = [0]
    for line in lines[at:end - 1]:
        starts.append(starts[-1] + len(line) + 1)
    start = _STARTS.search(text)
    header = _header(text, start.start())
    if header is None:
        return None
    table, pos = header
    rows, pos = _rows(text, pos, table)
    if not any(kind == "row" for kind, _, _ in rows):
        return None
    line_of = lambda offset: bisect.bisect_right(starts, offset) - 1  # noqa: E731
    pieces = [("header", table.labels, start.start())] + rows
    glued_lines = {line_of(p) for _, _, p in pieces if _after_text(text, p)}
    rest = text[pos:].split("\n", 1)[0] if pos < len(text) else ""
    if re.match(r"\s*[-\d(\[|]", rest):
        return None  # a cell more than the header names: the rows are not what it says
    if rest.strip():
        glued_lines.add(line_of(pos))
    if not glued_lines:
        return None
    last = line_of(pos) if pos < len(text) else end - at - 1
    new, where = [], []
    before = text[:start.start()].rsplit("\n", 1)[-1]
    if before.rstrip().endswith("|"):
        return None  # a bordered table (`| ID | Name |`): its rows are printed as they came
    for k in range(line_of(start.start())):
        new.append(lines[at + k])
        where.append(at + k)
    if before.strip():
        new.append(before.rstrip())
        where.append(at + line_of(start.start()))
    for line, offset in _printed(table, pieces):
        new.append(line)
        where.append(at + line_of(offset))
    if rest.strip():
        new.append(rest.strip())
        where.append(at + line_of(pos))
    return new, where, at + last + 1, len(glued_lines)


def _after_text(text: str, offset: int) -> bool:
    """Whether something other than blanks stands before `offset` on its line (a look back
    over blanks only: a paragraph of a million rows is one line)."""
    while offset and text[offset - 1] in " \t":
        offset -= 1
    return offset > 0 and text[offset - 1] != "\n"


def _header(text: str, pos: int) -> tuple[_Table, int] | None:
    """The labels from `pos` on, one after another (blanks or ` | ` between them)."""
    pipes = text.startswith("ID", pos)
    separator = re.compile(r"[ \t]*\|[ \t]*" if pipes else r"[ \t]+")
    labels, cells = [], []
    while True:
        # the longest label that matches (`Weighted Latency (us)`, not `Weight`): a label may
        # run into the first row's name (`Argument Shapesconv2d1`), never into a unit
        matches = [(m, cell) for pattern, cell in _LABELS
                   if (m := pattern.match(text, pos)) and not text.startswith("(", m.end())]
        if not matches:
            break
        m, cell = max(matches, key=lambda found: found[0].end())
        labels.append(re.sub(r"\s+", " ", m.group()))
        cells.append(cell)
        pos = m.end()
        gap = separator.match(text, pos)
        if gap is None or (not pipes and "\n" in gap.group()):
            break
        pos = gap.end()
    if len(labels) < 3 or not any(cell in ("number", "maybe") for cell in cells):
        return None
    return _Table(labels, cells, pipes), _end_of_header(text, pos, pipes)


def _end_of_header(text: str, pos: int, pipes: bool) -> int:
    return re.compile(r"[ \t]*\|?[ \t]*" if pipes else r"[ \t]*").match(text, pos).end()


def _row_pattern(table: _Table) -> re.Pattern[str]:
    between = r"[ \t]*\|[ \t]*" if table.pipes else r"[ \t]+"
    cells = [f"({_CELLS[cell]})" for cell in table.cells]
    body = between.join(cells)
    if table.cells[-1] == "flag":  # an empty last cell leaves no blank after its bar
        body = between.join(cells[:-1]) + r"(?:[ \t]*\|[ \t]*" + cells[-1] + ")?"
    lead = r"[ \t]*\|?[ \t]*" if table.pipes else ""
    # a row ends where its last cell does, even where the next row's name follows at once
    return re.compile(lead + body + r"(?![\d.,(\[])")


def _rows(text: str, pos: int, table: _Table):
    """Dash rules, rows, total rows and footers from `pos` on: (kind, cells, offset) each,
    and where the table ends."""
    row = _row_pattern(table)
    found, end = [], pos
    while True:
        gap = _GAP.match(text, end)
        at = gap.end()
        for kind, pattern in (("dashes", _DASHES), ("row", row), ("total", _TOTAL), ("footer", _FOOTER)):
            m = pattern.match(text, at)
            if m and m.end() > at:
                cells = list(m.groups()) if kind == "row" else m.group().split() if kind == "total" else [m.group()]
                found.append((kind, cells, at))
                end = m.end()
                break
        else:
            return found, end


def _printed(table: _Table, pieces) -> list[tuple[str, int]]:
    """The table as its printer lays it out: each cell padded to its column's width."""
    placed = []
    for kind, cells, offset in pieces:
        if kind in ("header", "row"):
            placed.append((kind, [c or "" for c in cells], offset))
        elif kind == "total":
            placed.append((kind, _fit(table, cells), offset))
        else:
            placed.append((kind, cells, offset))
    widths = [max([len(label) for label in table.labels[c:c + 1]] +
                  [len(cells[c]) for kind, cells, _ in placed if kind in ("header", "row", "total")])
              for c in range(len(table.labels))]
    out = []
    for kind, cells, offset in placed:
        if kind == "dashes":
            line = ("-" * (sum(widths) + 3 * len(widths)) if table.pipes
                    else "  ".join(("-" * len(label)).ljust(width) for label, width in zip(table.labels, widths))
                    if len(cells[0].split()) > 1
                    else cells[0])
        elif kind == "footer":
            line = re.sub(r"\s+", " ", cells[0])
        elif table.pipes:
            line = " " + " | ".join(cell.rjust(width) for cell, width in zip(cells, widths))
        else:
            line = "  ".join(cell.ljust(width) if c == 0 or not table.right else cell.rjust(width)
                             for c, (cell, width) in enumerate(zip(cells, widths)))
        out.append((line.rstrip(), offset))
    return out


def _fit(table: _Table, tokens: list[str]) -> list[str]:
    """A total row's cells under the columns they belong to: each in the first column left
    whose cells it could be (`-` in any), a column that it could not be left empty."""
    cells, c = [""] * len(table.labels), 0
    for k, token in enumerate(tokens):
        while c < len(cells) and k and token != "-" and not re.fullmatch(_CELLS[table.cells[c]], token):
            c += 1
        if c == len(cells):
            break
        cells[c] = token
        c += 1
    return cells
