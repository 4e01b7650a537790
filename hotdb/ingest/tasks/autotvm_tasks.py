"""`autotvm-tasks`: AutoTVM tasks as printed `Task(...)` reprs, and AutoTVM logs of both
versions, tophub files included (docs/formats.md).

    Task(func_name=conv2d_NCHWc.x86, args=(('TENSOR', (1, 3, 224, 224), 'float32'), ...), kwargs={}, workload=(...))
    {"input": [target, task_name, args, kwargs], "config": {...}, "result": [costs, error_no, all_cost, ts], "version": 0.2, ...}
    {"i": [target, old_task_name, args, kwargs, workload, {"i": index, "e": [...], "t": template}], "r": [...], "v": 0.1}

v0.1 records (TVM <= 0.6: `topi_x86_conv2d_NCHWc`, `topi_nn_conv2d`) keep their task name
and args as logged; their workload comes from the record's workload tuple, whose tensors
are flattened `[dims..., dtype]` and whose padding has two values.

Lenient listings, as people print tasks from their own scripts and logs, are read too:

    Extracted 10 conv2d tasks:                        (a heading; the reprs follow)
    [Kernel 0/11] dense_nopack.x86 - Search space size: 208
         Output previous layer :  ('TENSOR', (1, 4096), 'float32')
         Input current layer   :  ('TENSOR', (1000, 4096), 'float32')
    Config for target=llvm ..., workload=('dense_nopack.x86', ('TENSOR', ...), ...) is missing ...
    Cannot find config for target=cuda, workload=('conv2d', (1, 3, 416, 416, 'float32'), ...). A fallback ...
    [Task  1/12]  Current/Best: ...                   (progress: no task identity, counted)

AutoTVM's fallback warnings name the target and the whole workload: each is a task of that
target. Before TVM 0.7 the workload tuple is that of a v0.1 log (`'conv2d'`, tensors as
`(dims..., dtype)`) and is read the same way. A web page may run several warnings into one
paragraph and print typographic quotes (‘conv2d’): every workload of a line is read, and
the quotes are made plain first.

A task printed with its tensors only keeps its logical data and weight shapes; its
workload (strides, padding) then comes from the model's IR call with those operands.

A log yields one task per distinct (task name, args) and keeps every line as a tuning
record of its task. A file whose first entry is JSON is a log and every other line must
be JSON too (`#` comments excepted); a file of reprs may carry other printed lines,
which are skipped with a warning.
"""

from __future__ import annotations

import ast
import json
import re

from hotdb.ingest.notes import Warnings
from hotdb.ingest.paste.unrender import QUOTES
from hotdb.ingest.source import Source
from hotdb.ingest.text import LineRuns, line_runs
from hotdb.rows import Parsed, RecordList, TaskRow, measured_record
from hotdb.rows.derive import attach_workload
from hotdb.workload import WorkloadError, from_autotvm_task, task_template
from hotdb.workload.autotvm import autotvm_operands

_REPR = re.compile(r"Task\(func_name=([\w.]+),\s*args=")
# Lenient listings: an AutoTVM task name followed by its args as printed by a user's
# script, e.g. `[Task  3/12] conv2d_NCHWc.x86 (('TENSOR', (1, 64, 56, 56), 'float32'), ...)`.
_TARGETS = r"(?:x86|cuda|arm_cpu|mali|gpu|intel_graphics|image2d|bifrost|hls|vta|rocm|opencl|micro_dev)"
_LISTED = re.compile(r"\b([a-z][A-Za-z0-9_]*\." + _TARGETS + r")\b\W*?(?=\(+'TENSOR')")
_TENSOR = re.compile(r"\('TENSOR',\s*\(([\d,\s]*)\),\s*'(\w+)'\)")
# `[Kernel 0/11] dense_nopack.x86 - Search space size: 208` (a user's own loop)
_KERNEL_HEADER = re.compile(r"^\s*\[(?:Kernel|Task)\s*\d+\s*/\s*\d+\]\s+([a-z][\w]*\.[\w]+)\b(?!\s*Current)")
_PROGRESS = re.compile(r"^\s*\[Task\s*\d+\s*/\s*\d+\]\s+Current/Best")
_WORKLOAD = re.compile(r"workload=\(")
# Each workload of a line with the target printed before it, as in 'Cannot find config for
# target=llvm -device=arm_cpu -target=aarch64-linux-gnu, workload=(...)'; the target may
# hold commas (-keys=arm_cpu,cpu) but never runs into another warning's workload.
_WORKLOAD_AT = re.compile(r"(?:(?<![\w-])target=(?P<target>(?:(?!workload).)*?),\s*)?workload=\(")
# a workload printed after `workload=(`, in straight or typographic quotes
_WORKLOAD_SNIFF = re.compile(r"workload=\(\s*['\"\u2018\u2019\u201c\u201d]\w")
_HEADING = re.compile(r"^\s*(Extracted \d+ .*tasks?:?|Extract tasks\.*|Tuning\.*|Begin tuning\.*)\s*$", re.I)
_TUPLES_ONLY = re.compile(r"^\s*\(\s*\d+(\s*,\s*\d+){3,}\s*\)\s*$")


class AutotvmTasks:
    name = "autotvm-tasks"
    role = "tasks"
    reads = "AutoTVM tasks: printed Task(func_name=..., args=...) reprs, or v0.2 JSON tuning logs (one record per line)"
    detects = "'Task(func_name=' in the text, or JSON lines with \"input\", \"config\" and \"result\""

    def sniff(self, source: Source) -> bool:
        head = source.head
        if _REPR.search(head) or _LISTED.search(head) or re.search(_KERNEL_HEADER.pattern, head, re.M):
            return True
        if _WORKLOAD_SNIFF.search(head):
            return True  # fallback warnings: each names a whole task
        if re.search(r"^\s*Extracted \d+ .*tasks?:?\s*$", head, re.M | re.I):
            return True  # a task listing, maybe of a form hotdb refuses with a reason
        for line in head.splitlines()[:50]:
            line = line.strip()
            if line and not line.startswith("#"):
                return line.startswith("{") and (('"input"' in line and '"config"' in line)
                                                 or ('"i"' in line and '"v": 0.1' in line))
        return False

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Runs of task lines (reprs, printouts and the lines around them that a tuning
        script prints), and runs of AutoTVM JSON log records."""
        def task_line(line: str) -> bool:
            return bool(_REPR.search(line) or _KERNEL_HEADER.match(line) or _PROGRESS.match(line)
                        or _HEADING.match(line) or _LISTED.search(line) or _WORKLOAD_SNIFF.search(line)
                        or (line[:1].isspace() and _TENSOR.search(line) and "TENSOR" in line.split(":")[-1]))

        def log_line(line: str) -> bool:
            text = line.strip()
            return text.startswith("{") and (('"input"' in text and '"result"' in text)
                                             or ('"i"' in text and '"v": 0.1' in text))
        def names_a_task(line: str) -> bool:
            return bool(_REPR.search(line) or _KERNEL_HEADER.match(line) or _LISTED.search(line) or _WORKLOAD.search(line))
        runs = [(a, b) for a, b in line_runs(lines, task_line) if any(names_a_task(line) for line in lines[a:b])]
        return sorted(runs + line_runs(lines, log_line))

    def parse(self, source: Source) -> Parsed:
        """Read line by line (`iter_lines`: a large log is streamed); what is kept grows with
        the distinct tasks, not with the lines (the records as Arrow, spilled: RecordList)."""
        parsed = Parsed(role="tasks", records=RecordList(source))
        warnings = Warnings(source.name)
        tasks: dict[tuple[str, str], int] = {}
        log_mode = None
        pending: tuple[int, str, list] | None = None  # a `[Kernel i/N] name` header and its tensor lines
        first_tuples, progress, skipped = None, LineRuns(), LineRuns()  # skipped: other lines and tuples
        for line_no, raw in source.iter_lines():
            line = raw.strip()
            if pending is not None and (m := _TENSOR.search(line)) and not _KERNEL_HEADER.match(line):
                pending[2].append(["TENSOR", [int(d) for d in re.findall(r"\d+", m.group(1))], m.group(2)])
                continue
            if pending is not None:
                self._printed(source, parsed, tasks, warnings, *pending)
                pending = None
            if not line or line.startswith("#"):
                continue
            if log_mode is None:
                log_mode = line.startswith("{")
            if log_mode:
                self._record(source, parsed, tasks, line_no, raw, line)
                continue
            line = line.translate(QUOTES)
            if m := _REPR.search(line):
                self._repr(source, parsed, tasks, line_no, line, m)
            elif (m := _KERNEL_HEADER.match(line)) and "'TENSOR'" not in line:
                pending = (line_no, m.group(1), [])
            elif _PROGRESS.match(line):
                progress.add(line_no)
            elif _WORKLOAD.search(line) and self._workload_tuples(source, parsed, tasks, line_no, line):
                pass
            elif m := _LISTED.search(line):
                self._listed(source, parsed, tasks, warnings, line_no, line, m)
            elif _HEADING.match(line):
                continue
            else:
                if first_tuples is None and _TUPLES_ONLY.match(line):
                    first_tuples = line_no
                skipped.add(line_no)
        if pending is not None:
            self._printed(source, parsed, tasks, warnings, *pending)
        if not parsed.tasks:
            if first_tuples is not None:
                raise source.error(first_tuples, "these lines are tuples of numbers, not tasks: they carry no task name, "
                                   "data type or layout. Print the tasks themselves (print(task) gives Task(func_name=..., "
                                   "args=...)), or ingest the tuning log")
            raise source.error(None, "no AutoTVM tasks found: expected Task(func_name=..., args=...) lines, "
                                     "'[Kernel i/N] name' printouts or v0.2 JSON log records")
        if progress:
            warnings.add("progress", None, f"{len(progress)} tuning progress lines ('[Task i/N] Current/Best') name no task "
                         f"and were skipped (lines {progress})")
        if skipped:
            warnings.add("other", None, (f"1 line is not a task and was skipped (line {skipped})" if len(skipped) == 1 else
                         f"{len(skipped)} lines are not tasks and were skipped (lines {skipped})"))
        parsed.warnings = warnings.lines() + parsed.warnings
        return parsed

    def _task(self, source: Source, parsed: Parsed, tasks: dict, line_no: int, name: str, args: list,
              kwargs, target: str | None, canonical_args: list | None = None, tensors_only: bool = False) -> int:
        args_json = json.dumps(args, separators=(", ", ": "))
        key = (name, args_json)
        if key in tasks:
            return tasks[key]
        row = TaskRow(task_index=len(parsed.tasks), tuner="autotvm", task_name=name, task_args=args_json,
                      task_kwargs=json.dumps(kwargs) if kwargs else None, target=target, line_no=line_no)
        template = task_template(name)
        if template is not None:
            row.variant = template.variant
            row.op_family = template.family
            try:
                workload = from_autotvm_task(name, canonical_args if canonical_args is not None else args)
            except (WorkloadError, TypeError, ValueError, IndexError) as exc:
                if not tensors_only:
                    parsed.warnings.append(f"{source.name}:{line_no}: cannot derive the workload of task {name}: {exc}")
                workload = None
            if workload is not None:
                attach_workload(parsed, row, workload)
            else:
                operands = autotvm_operands(name, canonical_args if canonical_args is not None else args)
                if operands is not None:
                    row.data_shape_logical, row.weight_shape_logical = list(operands[0]), list(operands[1])
        tasks[key] = row.task_index
        parsed.tasks.append(row)
        return row.task_index

    def _repr(self, source: Source, parsed: Parsed, tasks: dict, line_no: int, line: str, m: re.Match) -> None:
        name = m.group(1)
        try:
            args_text, end = _balanced(line, m.end())
            args = _lists(ast.literal_eval(args_text))
            kwargs = {}
            km = re.compile(r"\s*,\s*kwargs=").match(line, end)
            if km:
                kwargs_text, _ = _balanced(line, km.end())
                kwargs = ast.literal_eval(kwargs_text)
        except (ValueError, SyntaxError) as exc:
            raise source.error(line_no, f"task {name}: expected args=(...) as a Python tuple: {exc}", field="args") from None
        if not isinstance(args, list):
            raise source.error(line_no, f"task {name}: expected args to be a tuple, found {args_text[:40]!r}", field="args")
        self._task(source, parsed, tasks, line_no, name, args, kwargs, None)

    def _printed(self, source: Source, parsed: Parsed, tasks: dict, warnings: Warnings, line_no: int, name: str,
                 tensors: list) -> None:
        """A `[Kernel i/N] name` header and the tensors printed under it."""
        if len(tensors) < 2:
            warnings.add("printed", line_no, f"task {name} is printed without its two tensors; skipped")
            return
        self._task(source, parsed, tasks, line_no, name, tensors, None, None, tensors_only=True)

    def _workload_tuples(self, source: Source, parsed: Parsed, tasks: dict, line_no: int, line: str) -> bool:
        """Every `workload=(...)` of a line, each a whole task with the target printed before
        it: 'Cannot find config for target=..., workload=(...)', 'Config for target=...,
        workload=(...) is missing', several to a line where a page ran them together."""
        found = False
        for m in _WORKLOAD_AT.finditer(line):
            try:
                text, _ = _balanced(line, m.end() - 1)
                task = _workload_task(ast.literal_eval(text))
            except (ValueError, SyntaxError):
                continue
            if task is None:
                continue
            name, args, canonical_args = task
            target = (m.group("target") or "").strip()
            self._task(source, parsed, tasks, line_no, name, args, None, None if target in ("", "None") else target,
                       canonical_args=canonical_args)
            found = True
        return found

    def _listed(self, source: Source, parsed: Parsed, tasks: dict, warnings: Warnings, line_no: int, line: str,
                m: re.Match) -> None:
        """A task name and its args as a user printed them. With the whole args tuple the
        workload is exact; with the tensors only, the task is kept without a workload."""
        name, rest = m.group(1), line[m.end():].strip()
        args = None
        try:
            text, _ = _balanced(rest, 0)
            value = ast.literal_eval(text)
            if isinstance(value, tuple) and value and isinstance(value[0], tuple):
                args = _lists(value)
        except (ValueError, SyntaxError):
            pass
        tensors_only = args is None
        if tensors_only:
            args = [["TENSOR", [int(d) for d in re.findall(r"\d+", dims)], dtype]
                    for dims, dtype in _TENSOR.findall(rest)]
        self._task(source, parsed, tasks, line_no, name, args, None, None, tensors_only=tensors_only)

    def _record(self, source: Source, parsed: Parsed, tasks: dict, line_no: int, raw: str, line: str) -> None:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise source.error(line_no, f"expected one JSON tuning record per line: {exc.msg} at column {exc.colno}") from None
        if isinstance(record, dict) and "i" in record and "r" in record and record.get("v") == 0.1:
            self._record_v01(source, parsed, tasks, line_no, raw, record)
            return
        if not isinstance(record, dict) or "input" not in record:
            raise source.error(line_no, "expected an AutoTVM record: v0.2 {\"input\": [target, task_name, args, kwargs], \"config\": ..., \"result\": ...} or v0.1 {\"i\": ..., \"r\": ..., \"v\": 0.1}")
        try:
            target, name, args, kwargs = record["input"][:4]
            config = record.get("config") or {}
            result = record["result"]
        except (ValueError, TypeError, KeyError) as exc:
            raise source.error(line_no, f"malformed v0.2 record: {exc}", field="input/result") from None
        if not isinstance(name, str) or not isinstance(args, list):
            raise source.error(line_no, "expected input = [target, task_name, args, kwargs]", field="input")
        index = self._task(source, parsed, tasks, line_no, name, args, kwargs, target)
        parsed.records.append(measured_record(source, line_no, raw, index, result, target=target,
                                              tvm_version=record.get("tvm_version"),
                                              config_index=config.get("index") if isinstance(config, dict) else None))


    def _record_v01(self, source: Source, parsed: Parsed, tasks: dict, line_no: int, raw: str, record: dict) -> None:
        try:
            target, name, args, kwargs, workload, config = record["i"][:6]
            result = record["r"]
        except (ValueError, TypeError) as exc:
            raise source.error(line_no, f"malformed v0.1 record: {exc}", field="i/r") from None
        if not isinstance(name, str) or not isinstance(args, list) or not isinstance(workload, list):
            raise source.error(line_no, "expected i = [target, task_name, args, kwargs, workload, config]", field="i")
        index = self._task(source, parsed, tasks, line_no, name, args, kwargs, target,
                           canonical_args=_v01_workload_args(workload))
        if isinstance(config, dict) and config.get("t") == "winograd":
            parsed.tasks[index].variant = "winograd"
        parsed.records.append(measured_record(source, line_no, raw, index, result, target=target, tvm_version="v0.1",
                                              config_index=config.get("i") if isinstance(config, dict) else None))


def _workload_task(value) -> tuple[str, list, list | None] | None:
    """(task name, args, canonical args) of a printed workload tuple: TVM >= 0.7's
    `('conv2d_NCHWc.x86', ('TENSOR', (dims), dtype), ...)` as it is, and the older
    `('conv2d', (dims..., dtype), ...)` of TVM <= 0.6 as a v0.1 log's workload."""
    if not (isinstance(value, tuple) and value and isinstance(value[0], str)):
        return None
    args = _lists(value[1:])
    if "." in value[0]:
        return value[0], args, None
    if any(_flat_tensor(a) for a in args):
        return value[0], _v01_tensors(args), _v01_workload_args([value[0], *args])
    return None


def _flat_tensor(item) -> bool:
    """A tensor as workloads of TVM <= 0.6 print it: (dims..., dtype)."""
    return (isinstance(item, list) and len(item) > 1 and isinstance(item[-1], str)
            and all(isinstance(d, int) and not isinstance(d, bool) for d in item[:-1]))


def _v01_tensors(args: list) -> list:
    """Flattened tensors [dims..., dtype] as v0.2's ["TENSOR", dims, dtype]."""
    return [["TENSOR", item[:-1], item[-1]] if _flat_tensor(item) else item for item in args]


def _v01_workload_args(workload: list) -> list:
    """A v0.1 workload tuple as v0.2 args: tensors [dims..., dtype] -> ["TENSOR", dims, dtype];
    dilation 1 inserted after the 2-value padding of convolutions whose workload has none
    (TVM <= 0.5; 0.6 prints it). A transposed convolution has no dilation: what follows its
    padding is its output type."""
    args = _v01_tensors(workload[1:])
    name = str(workload[0])
    has_dilation = len(args) > 4 and isinstance(args[4], list) and all(isinstance(d, int) for d in args[4])
    if "conv2d" in name and "transpose" not in name and len(args) >= 4 and isinstance(args[3], list) and not has_dilation:
        args.insert(4, [1, 1])
    return args


def _balanced(text: str, start: int) -> tuple[str, int]:
    """The bracketed Python literal starting at `start`, and where it ends."""
    if start >= len(text) or text[start] not in "([{":
        raise ValueError("expected '(' after args=")
    depth, quote = 0, None
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1], i + 1
    raise ValueError("unbalanced brackets: the line is truncated")


def _lists(value):
    """Tuples to lists, as AutoTVM serialises args."""
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value
