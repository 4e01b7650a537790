"""`vm-stat`: the Relay VM profiler's `get_stat()` table (TVM 0.6-0.7, VirtualMachineProfiler).

    #OpName                         #InvokeCount    #Duration(us): Sum/Mean/Min/Max
    fused_nn_conv2d_add_nn_relu_3    2               1253.2/626.6/620.1/633.1
    ...
    Total Duration: 20351.3 us.     Total Packed Functions: 36

Columns are tab-separated (names padded to 30 or 80 columns); with `show_shape` the
header reads `#OpNameNShape` and each name is followed by its argument shapes
`[(1,3,224,224,),(64,3,7,7,)],(1,64,112,112,)`. Sums and counts run over every call
since the profiler was created (all invocations of the model): shares are exact, the
per-inference time is Sum / runs, which the table does not say.
"""

from __future__ import annotations

import re

from hotdb.ingest.source import Source
from hotdb.ingest.text import line_ranges
from hotdb.rows import INT32_MAX, NodeList, NodeRow, Parsed, RunInfo
from hotdb.rows.derive import derive

_HEADER = re.compile(r"^\s*#OpName(NShape)?\s+#InvokeCount\s+#Duration\(us\):\s*Sum/Mean/Min/Max")
_TOTAL = re.compile(r"^\s*Total Duration:?\s*([0-9.eE+-]+)\s*us")
_SHAPE = re.compile(r"\(([\d,\s]*)\)")


class VmStat:
    name = "vm-stat"
    role = "profile"
    reads = "Relay VM profiler get_stat() table (TVM 0.6-0.7): #OpName, #InvokeCount, #Duration(us): Sum/Mean/Min/Max"
    detects = "a header '#OpName  #InvokeCount  #Duration(us): Sum/Mean/Min/Max'"

    def sniff(self, source: Source) -> bool:
        return any(_HEADER.match(line) for line in source.head.splitlines()[:200])

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        out = []
        for i, line in enumerate(lines):
            if _HEADER.match(line):
                end = i + 1
                while end < len(lines) and not _TOTAL.match(lines[end]) and (lines[end].strip() or
                                                                             _continues(lines, end)):
                    end += 1
                out.append((i, min(end + 1, len(lines))))
        return out

    def parse(self, source: Source) -> Parsed:
        lines = source.lines
        at = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
        if at is None:
            raise source.error(None, "no header '#OpName  #InvokeCount  #Duration(us): Sum/Mean/Min/Max'")
        with_shapes = bool(_HEADER.match(lines[at]).group(1))
        parsed = Parsed(role="profile", nodes=NodeList(source), run=RunInfo(variant="VM profiler get_stat"))
        skipped = []
        for line_no, line in enumerate(lines[at + 1:], start=at + 2):
            text = line.strip()
            if not text:
                continue
            if m := _TOTAL.match(text):
                parsed.run.reported_total_us = float(m.group(1))
                break
            cells = [c.strip() for c in line.split("\t")]
            if len(cells) < 3:
                skipped.append(line_no)
                continue
            name_cell, count_cell, durations = cells[0], cells[1], cells[-1]
            name, shapes = name_cell, None
            if with_shapes and " " in name_cell:
                name, _, shape_text = name_cell.partition(" ")
                shapes = [[int(d) for d in dims.split(",") if d.strip()] for dims in _SHAPE.findall(shape_text)]
            try:
                count = int(count_cell)
                total = float(durations.split("/")[0])
            except ValueError:
                raise source.error(line_no, f"expected a count and Sum/Mean/Min/Max times, found {count_cell!r} and "
                                            f"{durations!r}") from None
            if not 0 < count <= INT32_MAX or not total >= 0 or total == float("inf"):
                raise source.error(line_no, f"expected a count >= 1 and a time >= 0, found {count_cell!r} and {durations!r}")
            node = NodeRow(node_index=len(parsed.nodes), node_name=name, func_name=name, time_us=total, calls=count,
                           line_no=line_no)
            if shapes:
                node.input_shapes, node.out_shape = shapes[:-1] or None, shapes[-1]
                node.num_inputs = len(shapes) - 1
            parsed.nodes.append(derive(node))
        if not parsed.nodes:
            raise source.error(at + 1, "the table has a header but no rows")
        if skipped:
            parsed.warnings.append(f"{source.name}: {len(skipped)} lines in the table are not rows and were skipped "
                                   f"(lines {line_ranges(skipped)})")
        return parsed


def _continues(lines: list[str], at: int) -> bool:
    """A blank line inside the table: the Total line follows it."""
    return at + 1 < len(lines) and bool(_TOTAL.match(lines[at + 1]))
