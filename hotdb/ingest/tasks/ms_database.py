"""`ms-database`: a MetaSchedule JSON database folder (docs/formats.md).

* `database_workload.json`: one `["<structural hash>", "<base64 IRModule JSON>"]` per
  line, the line number being the workload index. The IRModule is decoded far enough to
  get its PrimFunc's buffers and anchor block (the first block with a reduction axis,
  e.g. `conv2d_nchw`). apache-tvm 0.27 writes an 8-byte length before the JSON graph
  (`{"root_index", "nodes": [{"type", "data"}]}`); older TVM wrote the JSON graph alone
  (`{"root", "nodes": [{"type_key", "attrs"}]}`). Both are read.
* `database_tuning_record.json`: `[workload_index, [trace, run_secs, target, args_info]]`
  per line; `args_info` lists `["TENSOR", dtype, shape]` per argument.

One task per workload, named by its structural hash (MetaSchedule names every workload
`main`), with the flattened argument dims that match it to kernels of a profile.
Records with run_secs of 1e10 (MetaSchedule's failure mark) count as errors.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct

from hotdb.ingest.source import MS_FILES, Source
from hotdb.rows import FAILED_RUN_SECS, Parsed, TaskRow, TuningRecordRow
from hotdb.rows.derive import attach_workload
from hotdb.rows.records import measured
from hotdb.workload import flat_dims, from_kernel_args
from hotdb.workload.families import sblock_family


class MsDatabase:
    name = "ms-database"
    role = "tasks"
    reads = "MetaSchedule JSON database folder (database_workload.json + database_tuning_record.json)"
    detects = "a folder holding database_workload.json"

    def sniff(self, source: Source) -> bool:
        return any(name == MS_FILES[0] for name, _ in source.members)

    def parse(self, source: Source) -> Parsed:
        workloads = source.member(MS_FILES[0])
        parsed = Parsed(role="tasks")
        for line_no, line in enumerate(workloads.lines, start=1):
            if not line.strip():
                continue
            try:
                shash, encoded = json.loads(line)
            except (json.JSONDecodeError, ValueError, TypeError):
                raise workloads.error(line_no, "expected [\"<structural hash>\", \"<base64 IRModule>\"]") from None
            anchor, buffers = _decode(workloads, line_no, str(encoded))
            row = TaskRow(task_index=len(parsed.tasks), tuner="meta_schedule", task_name=str(shash),
                          task_args=json.dumps([["TENSOR", list(s), d] for s, d in buffers]), task_kwargs=None,
                          target=None, line_no=line_no, structural_hash=str(shash),
                          op_family=sblock_family(anchor) if anchor else None, variant=anchor, raw_line=line)
            row.args_flat = flat_dims([s for s, _ in buffers]) if buffers else None
            attach_workload(parsed, row, from_kernel_args(row.op_family, buffers) if buffers else None)
            parsed.tasks.append(row)
        if not parsed.tasks:
            raise workloads.error(None, "the database has no workloads")
        workloads.forget_text()  # each file may hold 64 MiB: its text is not kept while the next is read
        if any(name == MS_FILES[1] for name, _ in source.members):
            records = source.member(MS_FILES[1])
            self._records(records, parsed)
            records.forget_text()
        return parsed

    def _records(self, records: Source, parsed: Parsed) -> None:
        for line_no, raw in enumerate(records.lines, start=1):
            if not raw.strip():
                continue
            try:
                index, (trace, run_secs, target, args_info) = json.loads(raw)
                index = int(index)
            except (json.JSONDecodeError, ValueError, TypeError):
                raise records.error(line_no, "expected [workload_index, [trace, run_secs, target, args_info]]") from None
            if not 0 <= index < len(parsed.tasks):
                raise records.error(line_no, f"workload index {index} is not a line of {MS_FILES[0]} (0..{len(parsed.tasks) - 1})")
            task = parsed.tasks[index]
            if args_info and task.args_flat is None:
                task.args_flat = flat_dims([a[2] for a in args_info])
            if isinstance(target, dict):
                target_text = json.dumps(target, sort_keys=True)
                task.target = task.target or target_text
            else:
                target_text = None
            costs = [float(c) for c in run_secs] if isinstance(run_secs, list) else None
            failed = not measured(costs) or any(c >= FAILED_RUN_SECS for c in costs)
            parsed.records.append(TuningRecordRow(
                line_no=line_no, task_index=index, config_index=None, costs_s=costs, error_no=1 if failed else 0,
                all_cost_s=None, timestamp=None, target=target_text, tvm_version=None, raw_line=raw))


def _decode(source: Source, line_no: int, encoded: str) -> tuple[str | None, list[tuple[list[int], str]]]:
    """(anchor block name, [(shape, dtype) per PrimFunc parameter]) of a base64 IRModule."""
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise source.error(line_no, "the IRModule is not valid base64", field="workload[1]") from None
    if raw[:1] != b"{" and len(raw) > 8:
        (length,) = struct.unpack("<Q", raw[:8])
        raw = raw[8:8 + length]
    try:
        graph = json.loads(raw)
        nodes = graph["nodes"]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
        raise source.error(line_no, "the decoded IRModule is not a TVM JSON graph", field="workload[1]") from None
    try:
        if nodes and "type" in nodes[0]:
            return _decode_ffi(nodes)
        return _decode_legacy(nodes)
    except (KeyError, IndexError, TypeError, ValueError):
        return None, []  # an IR layout hotdb does not know: the task keeps its hash only


def _decode_ffi(nodes: list[dict]) -> tuple[str | None, list]:
    """apache-tvm >= 0.2x graphs: {"type": ..., "data": ...}, references by node index."""
    def value(i):
        node = nodes[i]
        return node["data"]

    def ints(i):
        return [value(value(d)["value"]) if nodes[d]["type"] == "ir.IntImm" else -1 for d in value(i)]

    func = next(n for n in nodes if n["type"].endswith(".PrimFunc"))
    n_params = len(value(func["data"]["params"]))
    buffers = [n["data"] for n in nodes if n["type"].endswith("BufferType")][:n_params]
    params = [(ints(b["shape"]), value(b["dtype"])["dtype"]) for b in buffers]
    anchor = None
    for n in nodes:
        if n["type"].endswith("SBlock") or n["type"].endswith(".Block"):
            iters = value(n["data"]["iter_vars"])
            if any(value(v)["iter_type"] == 2 for v in iters):  # 2: kCommReduce
                anchor = value(n["data"]["name_hint"])
                break
    return anchor, params


def _decode_legacy(nodes: list[dict]) -> tuple[str | None, list]:
    """TVM <= 0.19 SaveJSON graphs: {"type_key": ..., "attrs": {...: "<index>"}, "data": [...]}."""
    def attr(node, key):
        return nodes[int(node["attrs"][key])]

    anchor = None
    for n in nodes:
        if n.get("type_key") in ("tir.Block",):
            iters = attr(n, "iter_vars").get("data", [])
            if any(nodes[i]["attrs"].get("iter_type") == "2" for i in iters):
                anchor = attr(n, "name_hint").get("repr_str")
                break
    params = []
    func = next((n for n in nodes if n.get("type_key") == "tir.PrimFunc"), None)
    if func is not None:
        buffer_map = attr(func, "buffer_map").get("data", [])
        for buffer_index in buffer_map[1::2]:
            buffer = nodes[buffer_index]
            shape = [int(nodes[d]["attrs"].get("value", -1)) for d in attr(buffer, "shape").get("data", [])]
            params.append((shape, buffer["attrs"].get("dtype", "")))
    return anchor, params
