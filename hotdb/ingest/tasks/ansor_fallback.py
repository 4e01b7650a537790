"""`ansor-fallback`: auto_scheduler's warning that a kernel was built with no tuned schedule,
as TVM prints it while compiling a model (docs/formats.md):

    -----------------------------------
    fused_nn.contrib_conv2d_winograd_without_weight_transform_add     (TVM >= 0.8: the function)
    Cannot find tuned schedules for target=cuda -keys=cuda,gpu ..., workload_key=["3ea73fb9...", 1, 56, 56, 64, ...]. A fallback TOPI schedule is used, which may bring great performance regression or even compilation failure. Compute DAG info:
    placeholder = PLACEHOLDER [1, 56, 56, 64]
    data_pad(i0, i1, i2, i3) = tir.if_then_else(...)

Each warning is the task that an auto_scheduler log or printed task list names by the same
workload key and target (tuner `auto_scheduler`, task name = the key's hash), so a model's
untuned kernels meet the tasks that would tune them. The key's dims, in any of its eras,
are the kernel's argument dims. The compute DAG under the warning, where it was pasted,
gives the anchor op and the workload as in ansor-tasks; for a flattened key its
placeholders say where one argument's dims end. The function name gives the family where
the DAG does not (a Winograd convolution has no stage named after it).

Warnings that a page ran into one paragraph are each read; a DAG that follows belongs to
the last of them. Typographic quotes (“...”) are made plain first.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field

from hotdb.ingest.paste.unrender import QUOTES
from hotdb.ingest.source import Source
from hotdb.ingest.tasks.ansor_tasks import _PLACEHOLDER, AnsorTasks, _dag_line
from hotdb.ingest.text import LineRuns
from hotdb.rows import Parsed, TaskRow
from hotdb.workload.families import parse_kernel_name

_WARNING = re.compile(r"Cannot find tuned schedules for target=(?P<target>(?:(?!workload_key=).)*?),\s*workload_key=(?=\[)")
_DAG_FOLLOWS = re.compile(r"Compute DAG info:\s*$")
# The rule that opens the message, after a logger's `WARNING:auto_scheduler:` where one was set up.
_RULE = re.compile(r"^\s*(?:[A-Z]+:[\w.]+:)?-{10,}\s*$")
_FUNCTION = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*$")
# x W^T as TOPI's dense computes it: what a key that is a hash alone still shows of a dense layer
_DENSE_STAGE = re.compile(r"^\w+\(i, j\) \+= \((\w+)\[i, k\]\*(\w+)\[j, k\]\)$")
_TASKS = AnsorTasks()


class AnsorFallback:
    name = "ansor-fallback"
    role = "tasks"
    reads = ("auto_scheduler's 'Cannot find tuned schedules for target=..., workload_key=[...]' warnings, "
             "with the function name and compute DAG printed around them")
    detects = "'Cannot find tuned schedules for target=' in the text"

    def sniff(self, source: Source) -> bool:
        return "Cannot find tuned schedules for target=" in source.head

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Each warning with the rule and function name above it and its DAG below."""
        return [(_opening(lines, i), _dag_end(lines, i)) for i, line in enumerate(lines) if _WARNING.search(line)]

    def parse(self, source: Source) -> Parsed:
        """Read line by line (`iter_lines`: a large text is streamed), the two lines before
        each at hand (a warning's rule and function name) and the warnings whose DAG is
        still being read held until it ends: what is kept grows with the distinct tasks."""
        parsed = Parsed(role="tasks")
        seen: set[tuple[str, str | None]] = set()
        before: deque[list] = deque()  # [line_no, line, read] of the two lines before this one
        reading: deque[_Warning] = deque()  # warnings not yet stored, in order: the first may be reading its DAG
        rest = LineRuns()
        for line_no, raw in source.iter_lines():
            entry = [line_no, raw, False]
            for warning in reading:
                if warning.in_dag and _dag_line(raw):
                    warning.dag.append(raw.strip())
                    entry[2] = True
                else:
                    warning.in_dag = False
            line = raw.translate(QUOTES)
            if found := list(_WARNING.finditer(line)):
                entry[2] = True
                reading.append(_warning(source, line_no, line, raw, found, before))
            while reading and not reading[0].in_dag:
                _store(parsed, source, seen, reading.popleft())
            before.append(entry)
            if len(before) > 2:
                _skipped(rest, before.popleft())
        for warning in reading:
            _store(parsed, source, seen, warning)
        for entry in before:
            _skipped(rest, entry)
        if not parsed.tasks:
            raise source.error(None, "no auto_scheduler fallback warnings found: expected 'Cannot find tuned schedules "
                                     "for target=..., workload_key=[...]'")
        if rest:
            parsed.warnings.append(f"{source.name}: {len(rest)} lines are not fallback warnings and were skipped "
                                   f"(lines {rest})")
        return parsed


@dataclass
class _Warning:
    """The warnings of one line: their keys and targets, the function name above them,
    and the DAG under the last, read while it goes on (`in_dag`)."""

    line_no: int
    found: list[tuple[list, str | None]]
    function: str | None
    in_dag: bool
    dag: list[str] = field(default_factory=list)


def _warning(source: Source, line_no: int, line: str, raw: str, found: list[re.Match], before: deque) -> _Warning:
    """The warnings of a line (keys read now: a bad one is named before the lines after
    it are read), with the lines of `before` that open them marked read."""
    above = [entry[1] for entry in before]
    start = _opening([*above, raw], len(above))
    for entry in list(before)[start:]:
        entry[2] = True
    function = _FUNCTION.match(above[-1]).group(1) if start == len(above) - 2 else None
    keys = [(_key(source, line_no, line, m.end()), m.group("target").strip() or None) for m in found]
    return _Warning(line_no, keys, function, bool(_DAG_FOLLOWS.search(raw)))


def _store(parsed: Parsed, source: Source, seen: set, warning: _Warning) -> None:
    """A task of each warning not seen before; the DAG is the last one's."""
    for n, (key, target) in enumerate(warning.found):
        if (json.dumps(key), target) in seen:
            continue
        seen.add((json.dumps(key), target))
        last = n == len(warning.found) - 1
        parsed.tasks.append(_row(parsed, source, key, target, warning.dag if last else [],
                                 warning.function if n == 0 else None, warning.line_no))


def _skipped(rest: LineRuns, entry: list) -> None:
    line_no, line, read = entry
    if line.strip() and not read:
        rest.add(line_no)


def _opening(lines: list[str], at: int) -> int:
    """The first line of the warning at `at`: the rule above it, and the function name
    between the two where TVM printed one."""
    if at >= 2 and _RULE.match(lines[at - 2]) and _FUNCTION.match(lines[at - 1]):
        return at - 2
    if at >= 1 and _RULE.match(lines[at - 1]):
        return at - 1
    return at


def _dag_end(lines: list[str], at: int) -> int:
    """One past the last line of the compute DAG printed under the warning at `at`."""
    end = at + 1
    if _DAG_FOLLOWS.search(lines[at]):
        while end < len(lines) and _dag_line(lines[end]):
            end += 1
    return end


def _key(source: Source, line_no: int, line: str, at: int) -> list:
    try:
        key, _ = json.JSONDecoder().raw_decode(line, at)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise source.error(line_no, f"expected the workload key as a JSON list after 'workload_key=': {getattr(exc, 'msg', exc)}",
                           field="workload_key") from None
    if not isinstance(key, list) or not key or not isinstance(key[0], str):
        raise source.error(line_no, "expected a workload key [\"<hash>\", dims...]", field="workload_key")
    return key


def _row(parsed: Parsed, source: Source, key: list, target: str | None, dag: list[str], function: str | None,
         line_no: int) -> TaskRow:
    """The task, as ansor-tasks reads a printed task with the same key and DAG."""
    flat = _ints(key[1:])
    era = "nested" if any(isinstance(x, list) for x in key[1:]) else "flattened" if flat else "hash only"
    shapes = _shapes(key, flat, era, dag)
    row = _TASKS._task(parsed, len(parsed.tasks), [key[0], *shapes], json.dumps(key), dag, line_no, source)
    row.target = target
    row.args_flat = ",".join(map(str, flat)) if flat else row.args_flat
    if row.variant != "winograd":
        row.variant = era
    if function is not None:
        named = parse_kernel_name(function.replace(".", "_"))
        if named.variant == "winograd":
            row.op_family, row.variant = "conv2d", "winograd"  # transformed weights: found by argument dims
        elif row.op_family is None:
            row.op_family = named.family
    return row


def _shapes(key: list, flat: list[int], era: str, dag: list[str]) -> list[list[int]]:
    """The key's argument shapes: as they are in a nested key; in a flattened one, the DAG's
    placeholders (the inputs), then the dims after them cut at the rank of the first (the
    arguments a DAG printed in part leaves out, and the output); in a hash alone, a dense
    layer's from its DAG."""
    if era == "nested":
        return [s for s in key[1:] if isinstance(s, list)]
    placeholders = [[int(d) for d in re.findall(r"\d+", line.split("[", 1)[1])] for line in dag if _PLACEHOLDER.match(line)]
    inputs = [d for shape in placeholders for d in shape]
    if era == "flattened":
        rest, rank = flat[len(inputs):], len(placeholders[0]) if placeholders else 0
        if not rank or flat[:len(inputs)] != inputs or not rest or len(rest) % rank:
            return []  # the DAG is not this key's, or cut short
        return placeholders + [rest[i:i + rank] for i in range(0, len(rest), rank)]  # the output is last
    stages = [m for line in dag if (m := _DENSE_STAGE.match(line))]
    if len(placeholders) == 2 and all(len(p) == 2 for p in placeholders) and len(stages) == 1:
        return placeholders + [[placeholders[0][0], placeholders[1][0]]]
    return []


def _ints(values) -> list[int]:
    out: list[int] = []
    for value in values:
        if isinstance(value, list):
            out.extend(_ints(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            out.append(value)
    return out
