"""`ansor-log`: auto_scheduler (Ansor) tuning records, one JSON object per line (docs/formats.md).

    {"i": [[workload_key, target, hardware_params?, target_host?, layout_rewrite?, [input names]?],
           [[], [steps...]]],
     "r": [[costs_s...], error_no, all_cost_s, timestamp], "v": "v0.6"}

The workload key is a JSON string in one of three eras:

* hash only:            `["<md5>"]`
* flattened (2021):     `["<md5>", 1, 7, 7, 2048, 1, 1, 1, 2048]`
* nested (>= Aug 2021): `["<md5>", [1, 7, 7, 2048], [1, 1, 1, 2048]]`
* TE workloads registered by name: `["conv2d_layer", 1, 7, 7, 512, 512, 3, 3, [1, 1], [1, 1]]`

Shapes are the kernel's argument shapes (inputs, then outputs), so a kernel whose
argument shapes are known matches a task by their flattened dims (`args_flat`), whatever
the era. One task per distinct (workload key, target); every line is a tuning record.
"""

from __future__ import annotations

import json
import re

from hotdb.ingest.source import Source
from hotdb.ingest.text import line_runs
from hotdb.rows import Parsed, RecordList, TaskRow, measured_record
from hotdb.rows.derive import attach_workload
from hotdb.workload import WorkloadError, conv_workload, dense_workload

_HASH = re.compile(r"^[0-9a-f]{32}$")


class AnsorLog:
    name = "ansor-log"
    role = "tasks"
    reads = "auto_scheduler (Ansor) tuning logs: all three workload-key eras and TE workloads registered by name"
    detects = "JSON lines {\"i\": [[workload_key, target, ...], ...], \"r\": ..., \"v\": \"v0.x\"}"

    def sniff(self, source: Source) -> bool:
        for line in source.head.splitlines()[:50]:
            line = line.strip()
            if line and not line.startswith("#"):
                return line.startswith('{"i": [["[') or (line.startswith("{") and '"v": "v0.' in line and '"i"' in line)
        return False

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        return line_runs(lines, lambda line: line.lstrip().startswith('{"i": [["') and '"r"' in line)

    def parse(self, source: Source) -> Parsed:
        """Read line by line (`iter_lines`: a large log is streamed); what is kept grows with
        the distinct tasks, not with the lines (the records as Arrow, spilled: RecordList)."""
        parsed = Parsed(role="tasks", records=RecordList(source))
        tasks: dict[tuple[str, str], int] = {}
        for line_no, raw in source.iter_lines():
            line = raw.strip()
            # auto_scheduler's own reader skips lines starting with '#' or a space
            if not line or raw.startswith(("#", " ")):
                continue
            try:
                record = json.loads(line)
                task_part = record["i"][0]
                key_text, target = task_part[0], task_part[1]
                result = record["r"]
            except (json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
                raise source.error(line_no, f"expected an auto_scheduler record {{\"i\": [[workload_key, target, ...], ...], \"r\": [...]}}: {exc}") from None
            try:
                key = json.loads(key_text)
            except (json.JSONDecodeError, TypeError):
                raise source.error(line_no, f"expected the workload key to be a JSON list string, found {str(key_text)[:40]!r}", field="i[0][0]") from None
            if not isinstance(key, list) or not key or not isinstance(key[0], str):
                raise source.error(line_no, "expected a workload key [\"<hash or name>\", ...]", field="i[0][0]")
            index = tasks.get((key_text, target))
            if index is None:
                index = len(parsed.tasks)
                tasks[(key_text, target)] = index
                parsed.tasks.append(self._task(parsed, index, key, key_text, target, line_no, source))
            parsed.records.append(measured_record(source, line_no, raw, index, result, target=target,
                                                  tvm_version=record.get("v")))
        if not parsed.tasks:
            raise source.error(None, "no auto_scheduler records found")
        return parsed

    def _task(self, parsed: Parsed, index: int, key: list, key_text: str, target: str, line_no: int,
              source: Source) -> TaskRow:
        head, rest = key[0], key[1:]
        row = TaskRow(task_index=index, tuner="auto_scheduler", task_name=head, task_args=json.dumps(key),
                      task_kwargs=None, target=target, line_no=line_no)
        if _HASH.match(head):
            ints = _flatten(rest)
            row.args_flat = ",".join(map(str, ints)) if ints else None
            row.variant = "nested" if any(isinstance(x, list) for x in rest) else ("flattened" if rest else "hash only")
            return row
        try:
            workload = _registered(head, rest)
        except (WorkloadError, TypeError, ValueError, IndexError) as exc:
            parsed.warnings.append(f"{source.name}:{line_no}: cannot derive the workload of {head}: {exc}")
            workload = None
        attach_workload(parsed, row, workload)
        row.variant = "registered"
        return row


def _flatten(values) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, list):
            out.extend(_flatten(v))
        elif isinstance(v, int):
            out.append(v)
    return out


def _registered(name: str, args: list):
    """TE workloads of TVM's tutorials, registered with @auto_scheduler.register_workload."""
    if name == "conv2d_layer":  # (N, H, W, CO, CI, KH, KW, stride, padding): NCHW data, OIHW kernel
        n, h, w, co, ci, kh, kw, stride, padding = args
        return conv_workload((n, ci, h, w), (co, ci, kh, kw), stride, padding, None, 1, "float32")
    if name == "matmul_add":  # (N, L, M, dtype): A (N, L) x B (L, M) + C
        n, l, m, dtype = args
        return dense_workload((n, l), (m, l), dtype)
    return None
