"""Typed rows: what every reader (and live capture) produces, one class per table.

Field names are the table's column names (schema/); the loader adds the ids
(model, run, source) that only exist once a file is being stored. How rows are kept
while a large input is read (as Arrow, spilled to files) is lists.py's; what one input
yields, all together, is parsed.py's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields

Shape = list[int]
INT32_MAX = 2**31 - 1  # the largest value of an INTEGER column (shapes, counts, indexes)
# run_secs at or above this are MetaSchedule's "failed" (kMaxMeanTime 1e10): its database's
# reader, the tune's driver, its task scheduler and its sibling trials all read records by it
FAILED_RUN_SECS = 1e9


@dataclass(slots=True)
class NodeRow:
    """One executed kernel call (or, aggregated, `calls` calls) of a run."""

    node_index: int
    node_name: str
    func_name: str
    time_us: float
    calls: int = 1
    output_index: int = 0
    reported_share_pct: float | None = None
    out_shape: Shape | None = None
    out_dtype: str | None = None
    input_shapes: list[Shape] | None = None
    input_dtypes: list[str] | None = None
    num_inputs: int | None = None
    num_outputs: int | None = None
    start_us: float | None = None
    device: str | None = None
    line_no: int | None = None
    kernel_family: str | None = None
    func_base: str | None = None
    func_number: int | None = None
    out_shape_logical: Shape | None = None
    workload_key: str | None = None
    data_shape_logical: Shape | None = None
    weight_shape_logical: Shape | None = None
    args_flat: str | None = None
    kernel_hash: str | None = None
    layouts: str | None = None  # JSON object
    is_kernel: bool = True


# how `nodes` is stored (schema/0005): what varies per call, and the kernel signature
# that a run stores once however many calls share it
CALL_COLUMNS = ("node_index", "time_us", "calls", "reported_share_pct", "start_us", "device", "line_no")


SIGNATURE_COLUMNS = ("node_name", "output_index", "func_name", "out_shape", "out_dtype", "input_shapes", "input_dtypes",
                     "num_inputs", "num_outputs", "kernel_family", "func_base", "func_number", "out_shape_logical",
                     "workload_key", "data_shape_logical", "weight_shape_logical", "args_flat", "kernel_hash", "layouts",
                     "is_kernel")


@dataclass(slots=True)
class GraphNodeRow:
    """One kernel node of a graph JSON: input shapes without times."""

    node_index: int
    node_name: str
    func_name: str
    input_shapes: list[Shape] | None
    input_dtypes: list[str] | None
    out_shape: Shape | None
    out_dtype: str | None
    kernel_hash: str | None = None
    layouts: str | None = None
    data_shape_logical: Shape | None = None
    weight_shape_logical: Shape | None = None
    args_flat: str | None = None


@dataclass(slots=True)
class SampleRow:
    """One repeated measurement of one node (Measurements(us), live capture repeats)."""

    node_index: int
    sample_index: int
    time_us: float


@dataclass(slots=True)
class IrCallRow:
    """One operator call in a model's IR, in IR order."""

    call_index: int
    function_name: str
    result_var: str | None
    op_name: str
    attrs: str  # JSON object
    arg_kinds: list[str]
    arg_shapes: list[Shape | None]
    arg_dtypes: list[str | None]
    result_shapes: list[Shape | None]
    result_dtypes: list[str | None]
    line_no: int
    op_family: str | None = None
    workload_key: str | None = None
    out_shape_logical: Shape | None = None
    compiler: str | None = None  # BYOC partition (Compiler="..."): not tunable by TVM
    primfunc: str | None = None  # the kernel a Relax call_tir calls
    args_flat: str | None = None  # argument dims (inputs then output) of a PrimFunc call


@dataclass(slots=True)
class TaskRow:
    """One tuning task as a tuner names it."""

    task_index: int
    tuner: str
    task_name: str
    task_args: str  # JSON, AutoTVM's serialised form: [["TENSOR", [dims], dtype], ...]
    task_kwargs: str | None
    target: str | None
    line_no: int
    op_family: str | None = None
    variant: str | None = None
    workload_key: str | None = None
    out_shape_logical: Shape | None = None
    args_flat: str | None = None
    weight: int | None = None
    structural_hash: str | None = None
    data_shape_logical: Shape | None = None  # operands, also when the printout gives only them
    weight_shape_logical: Shape | None = None
    # MetaSchedule's tuning state, where a tuning log says it (ms_tuning_log.py)
    flop: int | None = None
    trials: int | None = None
    best_latency_us: float | None = None
    terminated: bool | None = None
    raw_line: str | None = None  # a MetaSchedule workload's line, as in the source


@dataclass(slots=True)
class TuningRecordRow:
    """One measured configuration of a task, as the tuner logged it."""

    line_no: int
    task_index: int  #: index into the same source's tasks
    config_index: int | None
    costs_s: list[float] | None
    error_no: int | None
    all_cost_s: float | None
    timestamp: float | None
    target: str | None
    tvm_version: str | None
    raw_line: str


# AutoTVM's UNKNOWN_ERROR: what a record that claims success with costs no run can have is marked
UNMEASURED = 8


def measured(costs: list[float] | None) -> bool:
    """Costs a measurement can have: some, each finite and not negative (a record of cost
    -5 s was once taken as the best, and the model projected to run in -4.97 s)."""
    return bool(costs) and all(math.isfinite(c) and c >= 0 for c in costs)


def measured_record(source, line_no: int, raw: str, task_index: int, result, *, target=None,
                    tvm_version=None, config_index=None) -> TuningRecordRow:
    """A tuning record from AutoTVM's and auto_scheduler's `[costs_s, error_no, all_cost_s,
    timestamp]` result list, checked: bad values are a ParseError on their line."""
    if not isinstance(result, list) or len(result) < 2:
        raise source.error(line_no, "expected a result [costs, error_no, all_cost, timestamp]", field="result")
    costs, error_no, all_cost, timestamp = (list(result) + [None] * 4)[:4]
    try:
        costs = [float(c) for c in costs] if isinstance(costs, list) else None
        error_no = int(error_no) if error_no is not None else None
        all_cost = float(all_cost) if all_cost is not None else None
        timestamp = float(timestamp) if timestamp is not None else None
        config_index = int(config_index) if config_index is not None else None
    except (TypeError, ValueError):
        raise source.error(line_no, f"expected numbers in the result, found {json.dumps(result)[:60]}", field="result") from None
    if error_no == 0 and not measured(costs):
        error_no = UNMEASURED  # stored, never the best record
    return TuningRecordRow(line_no=line_no, task_index=task_index, config_index=config_index, costs_s=costs,
                           error_no=error_no, all_cost_s=all_cost, timestamp=timestamp,
                           target=str(target) if target is not None else None,
                           tvm_version=tvm_version, raw_line=raw)


@dataclass
class RunInfo:
    """What a profile says about the session that produced it."""

    device: str | None = None
    target: str | None = None
    tvm_version: str | None = None
    reported_total_us: float | None = None
    variant: str | None = None  # e.g. "with Measurements(us)", "legacy Start/End"


def column_names(row_class) -> list[str]:
    return [f.name for f in fields(row_class)]
