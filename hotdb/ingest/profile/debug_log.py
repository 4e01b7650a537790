"""`debug-log`: the graph debug runtime's log lines, as a console shows them.

`run_individual` (TVM 0.6-0.7, graph_runtime_debug.cc) logs one line per kernel node and
repeat; 0.8 and later (graph_executor_debug.cc) split it over two lines:

    [10:21:33] .../graph_runtime_debug.cc:103: Iteration: 0
    [10:21:33] .../graph_runtime_debug.cc:108: Op #0 fused_layout_transform_2: 36.0865 us/iter
    ... graph_executor_debug.cc:65: Op #34 tvmgen_default_fused_cast_7:
    ... graph_executor_debug.cc:68: Iteration: 0: 6.70616 us/iter

`Op #N` counts kernel nodes in execution order; the name is the graph node's name, which
also stands for its kernel (the log prints no symbol; TVM <= 0.9 names a repeated call
site `func1`, `func2`, so these names do not carry reliable numbering). Every repeat is
one sample of its node; the node's time is their mean. There are no shapes: a run read
from a log is matched by name only, or with a graph JSON of the same build.
"""

from __future__ import annotations

import re

from hotdb.ingest.source import Source
from hotdb.ingest.text import LineRuns, line_runs
from hotdb.rows import NodeRow, Parsed, RunInfo, Samples
from hotdb.rows.derive import derive

_ITERATION = re.compile(r"(?:^|:\s)Iteration:\s*(\d+)\s*$")
_OP_TIMED = re.compile(r"(?:^|\s)Op #(\d+)\s+(\S+?):\s*([0-9.eE+-]+)\s*us/iter\s*$")
_OP_NAMED = re.compile(r"(?:^|\s)Op #(\d+)\s+(\S+?):\s*$")
_ITER_TIMED = re.compile(r"(?:^|\s)Iteration:\s*(\d+):\s*([0-9.eE+-]+)\s*us/iter\s*$")


class DebugLog:
    name = "debug-log"
    role = "profile"
    reads = "graph debug runtime log lines 'Op #N name: T us/iter' (TVM 0.6-0.7) or 'Op #N name:' + 'Iteration: K: T us/iter' (0.8+)"
    detects = "lines 'Op #<n> <name>: <t> us/iter', or 'Op #<n> <name>:' followed by 'Iteration: <k>: <t> us/iter'"

    def sniff(self, source: Source) -> bool:
        head = source.head
        return bool(re.search(_OP_TIMED.pattern, head, re.M)) or (
            bool(re.search(_OP_NAMED.pattern, head, re.M)) and bool(re.search(_ITER_TIMED.pattern, head, re.M)))

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        return line_runs(lines, lambda line: bool(_OP_TIMED.search(line) or _OP_NAMED.search(line)
                                               or _ITER_TIMED.search(line) or _ITERATION.search(line)))

    def parse(self, source: Source) -> Parsed:
        """Read line by line (`iter_lines`: a large log is streamed); what is kept grows
        with the kernels, not with the lines (their samples spill to a file, rows.Samples)."""
        samples = Samples()
        names: dict[int, tuple[str, int]] = {}
        current: tuple[int, str, int] | None = None  # 0.8+: the op whose iterations follow
        skipped = LineRuns()
        for line_no, line in source.iter_lines():
            text = line.rstrip()
            if m := _OP_TIMED.search(text):
                op, name, value = int(m.group(1)), m.group(2), m.group(3)
                self._sample(source, line_no, samples, names, op, name, value)
                current = None
            elif m := _OP_NAMED.search(text):
                current = (int(m.group(1)), m.group(2), line_no)
            elif (m := _ITER_TIMED.search(text)) and current is not None:
                self._sample(source, line_no, samples, names, current[0], current[1], m.group(2))
            elif text.strip() and not _ITERATION.search(text):
                skipped.add(line_no)
        if not names:
            raise source.error(None, "no timed kernels: expected 'Op #<n> <name>: <t> us/iter' lines")
        parsed = Parsed(role="profile", run=RunInfo(variant="debug log"), samples=samples)
        for index, op in enumerate(sorted(names)):
            name, line_no = names[op]
            parsed.nodes.append(derive(NodeRow(node_index=index, node_name=name, func_name=name,
                                        time_us=samples.mean(op), line_no=line_no)))
        samples.number({op: index for index, op in enumerate(sorted(names))})
        if skipped:
            parsed.warnings.append(f"{source.name}: {len(skipped)} lines are not kernel times and were skipped "
                                   f"(lines {skipped})")
        return parsed

    @staticmethod
    def _sample(source: Source, line_no: int, samples: Samples, names: dict, op: int, name: str, value: str) -> None:
        try:
            time_us = float(value)
        except ValueError:
            raise source.error(line_no, f"expected a time in us/iter, found {value!r}") from None
        if not time_us >= 0 or time_us == float("inf"):
            raise source.error(line_no, f"expected a finite time >= 0, found {value!r}")
        known = names.setdefault(op, (name, line_no))
        if known[0] != name:
            raise source.error(line_no, f"Op #{op} is {known[0]} at line {known[1]} and {name} here: "
                                        "the log mixes two models; ingest them separately")
        samples.append(op, time_us)
