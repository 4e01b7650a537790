"""`ansor-tasks`: auto_scheduler's extracted tasks as its tutorials print them.

    ========== Task 0  (workload key: ["8654f16aeddf785bad9f028164b3a48d", [1, 56, 56, 64], [1, 1, 64, 256], [1, 56, 56, 256]]) ==========
    placeholder = PLACEHOLDER [1, 56, 56, 64]
    pad_temp(i0, i1, i2, i3) = placeholder[i0, i1, i2, i3]
    placeholder = PLACEHOLDER [1, 1, 64, 256]
    conv2d_nhwc(nn, yy, xx, ff) += (pad_temp[nn, (yy + ry), (xx + rx), rc]*placeholder[ry, rx, rc, ff])

Each task is the one an auto_scheduler log names by the same workload key (hotdb reads
both as tuner `auto_scheduler`, task name = the key's hash), so a printed list and a log
of one model meet in one task. The key's shapes give the argument dims; the compute DAG
gives the anchor op and what makes the canonical workload (ansor_dag.py: convolutions,
depthwise, winograd, dense, batch_matmul, pooling, softmax). The printed DAG does not show
data types: these workloads are float32, as in the tutorials that print such lists; a task
of another type is still found by its argument dims.
"""

from __future__ import annotations

import json
import re

from hotdb.ingest.source import Source
from hotdb.ingest.tasks.ansor_dag import PLACEHOLDER as _PLACEHOLDER
from hotdb.ingest.tasks.ansor_dag import STAGE as _STAGE
from hotdb.ingest.tasks.ansor_dag import family_of as dag_family
from hotdb.ingest.tasks.ansor_dag import workload as dag_workload
from hotdb.ingest.text import LineRuns
from hotdb.rows import Parsed, TaskRow
from hotdb.rows.derive import attach_workload
from hotdb.workload import WorkloadError
from hotdb.workload.layouts import LayoutError

_TASK = re.compile(r"^\s*=+\s*Task\s+(\d+)\s+\(workload key:\s*(\[.*\])\)\s*=+\s*$")


class AnsorTasks:
    name = "ansor-tasks"
    role = "tasks"
    reads = "auto_scheduler task lists as printed: '========== Task i  (workload key: [...]) ==========' and the compute DAG"
    detects = "lines '========== Task <i>  (workload key: [...]) =========='"

    def sniff(self, source: Source) -> bool:
        return bool(re.search(_TASK.pattern, source.head, re.M))

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        i = 0
        while i < len(lines):
            if not _TASK.match(lines[i]):
                i += 1
                continue
            start = end = i
            while end < len(lines) and (_TASK.match(lines[end]) or _dag_line(lines[end]) or
                                        (not lines[end].strip() and _next_is_task(lines, end))):
                end += 1
            out.append((start, end))
            i = end
        return out

    def parse(self, source: Source) -> Parsed:
        """Read line by line (`iter_lines`: a large printout is streamed): a task's DAG is
        the DAG lines up to the next header, held until it comes; what is kept grows with
        the distinct tasks, not with the lines."""
        parsed = Parsed(role="tasks")
        seen: set[str] = set()
        current: tuple | None = None  # (line_no, key, key_text, DAG lines) of the task read; None: a repeat
        headers, rest = 0, LineRuns()
        for line_no, line in source.iter_lines():
            if m := _TASK.match(line):
                self._add(parsed, current, source)
                headers += 1
                current = self._header(source, line_no, m, seen)
            elif _dag_line(line):
                if current is not None:
                    current[3].append(line.strip())
            elif line.strip():
                rest.add(line_no)
        if not headers:
            raise source.error(None, "no task headers: expected '========== Task 0  (workload key: [...]) =========='")
        self._add(parsed, current, source)
        if rest:
            parsed.warnings.append(f"{source.name}: {len(rest)} lines are not tasks and were skipped (lines {rest})")
        return parsed

    @staticmethod
    def _header(source: Source, line_no: int, m: re.Match, seen: set[str]) -> tuple | None:
        """The task a header begins, its DAG to come; None for a key printed before."""
        try:
            key = json.loads(m.group(2))
        except json.JSONDecodeError as exc:
            raise source.error(line_no, f"expected the workload key as a JSON list: {exc.msg}", field="workload key") from None
        if not isinstance(key, list) or not key or not isinstance(key[0], str):
            raise source.error(line_no, "expected a workload key [\"<hash>\", [shape], ...]", field="workload key")
        key_text = json.dumps(key)
        if key_text in seen:
            return None
        seen.add(key_text)
        return line_no, key, key_text, []

    def _add(self, parsed: Parsed, task: tuple | None, source: Source) -> None:
        if task is not None:
            line_no, key, key_text, dag = task
            parsed.tasks.append(self._task(parsed, len(parsed.tasks), key, key_text, dag, line_no, source))

    def _task(self, parsed: Parsed, index: int, key: list, key_text: str, dag: list[str], line_no: int,
              source: Source) -> TaskRow:
        shapes = [s for s in key[1:] if isinstance(s, list)]
        flat = [d for s in shapes for d in (s if all(isinstance(x, int) for x in s) else [])]
        row = TaskRow(task_index=index, tuner="auto_scheduler", task_name=key[0], task_args=key_text, task_kwargs=None,
                      target=None, line_no=line_no, args_flat=",".join(map(str, flat)) or None,
                      variant="nested" if shapes else "hash only")
        row.op_family, variant = dag_family(dag)
        row.variant = variant or row.variant
        try:
            workload = dag_workload(row.op_family, variant, shapes, dag)
        except (WorkloadError, LayoutError, ValueError, IndexError, TypeError) as exc:
            parsed.warnings.append(f"{source.name}:{line_no}: cannot derive the workload of task {key[0]}: {exc}")
            workload = None
        attach_workload(parsed, row, workload)
        return row


def _dag_line(line: str) -> bool:
    text = line.strip()
    return bool(text) and bool(_PLACEHOLDER.match(text) or _STAGE.match(text))


def _next_is_task(lines: list[str], at: int) -> bool:
    for i in range(at + 1, len(lines)):  # by index: a slice would copy the rest of the text per blank line
        if lines[i].strip():
            return bool(_TASK.match(lines[i]))
    return False
