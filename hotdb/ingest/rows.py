"""Typed rows: what every ingestor (and live capture) produces, one class per table.

Field names are the table's column names (schema/); the loader adds the ids
(model, run, source) that only exist once a file is being stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from hotdb.workload import Workload, logical_output_shape, parse_kernel_name

Shape = list[int]


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

    def derive(self) -> "NodeRow":
        """Fill the columns that follow from the kernel symbol and output shape."""
        kernel = parse_kernel_name(self.func_name)
        self.kernel_family, self.func_base, self.func_number = kernel.family, kernel.base, kernel.number
        logical = logical_output_shape(kernel.family, self.out_shape)
        self.out_shape_logical = list(logical) if logical is not None else None
        return self


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


@dataclass
class RunInfo:
    """What a profile says about the session that produced it."""

    device: str | None = None
    target: str | None = None
    tvm_version: str | None = None
    reported_total_us: float | None = None
    variant: str | None = None  # e.g. "with Measurements(us)", "legacy Start/End"


@dataclass
class Parsed:
    """Everything one file yields. `run` is set for profiles only."""

    role: str  # "profile" | "ir" | "tasks"
    nodes: list[NodeRow] = field(default_factory=list)
    samples: list[SampleRow] = field(default_factory=list)
    ir_calls: list[IrCallRow] = field(default_factory=list)
    tasks: list[TaskRow] = field(default_factory=list)
    records: list[TuningRecordRow] = field(default_factory=list)
    workloads: dict[str, Workload] = field(default_factory=dict)
    run: RunInfo | None = None
    warnings: list[str] = field(default_factory=list)

    def add_workload(self, workload: Workload | None) -> str | None:
        if workload is None:
            return None
        self.workloads.setdefault(workload.key, workload)
        return workload.key

    @property
    def row_count(self) -> int:
        return len(self.nodes) + len(self.ir_calls) + len(self.tasks) + len(self.records)


def column_names(row_class) -> list[str]:
    return [f.name for f in fields(row_class)]
