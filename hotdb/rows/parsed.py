"""What one input yields (Parsed): its rows, as lists or, where an input may be large, as
the compact lists of lists.py; its run; its workloads; what its reader warned of."""

from __future__ import annotations

from dataclasses import dataclass, field

from hotdb.rows.lists import IrCallList, NodeFile, NodeList, NodeTable, RecordList, SampleList, Samples
from hotdb.rows.records import GraphNodeRow, IrCallRow, NodeRow, RunInfo, SampleRow, TaskRow, TuningRecordRow
from hotdb.workload import Workload

#: what a source is to a build: "profile" (times: a run), "ir" (the model's operators),
#: "tasks" (tuning tasks and records), "graph" (structure with shapes, no times)
ROLES = ("profile", "ir", "tasks", "graph")


@dataclass
class Parsed:
    """Everything one file yields. `run` is set for profiles only."""

    role: str  # one of ROLES
    nodes: list[NodeRow] | NodeList = field(default_factory=list)  # a NodeList where tables may be large
    graph_nodes: list[GraphNodeRow] = field(default_factory=list)
    samples: list[SampleRow] | Samples | SampleList = field(default_factory=list)  # where there may be many
    ir_calls: list[IrCallRow] | IrCallList = field(default_factory=list)  # an IrCallList where an IR may be large
    tasks: list[TaskRow] = field(default_factory=list)
    records: list[TuningRecordRow] | RecordList = field(default_factory=list)  # a RecordList where a log may be large
    workloads: dict[str, Workload] = field(default_factory=dict)
    run: RunInfo | None = None
    warnings: list[str] = field(default_factory=list)
    node_table: NodeTable | None = None  # a large profile's nodes (ingest/profile/report/streamed_csv.py, streamed_json.py)
    node_file: NodeFile | None = None  # a debug dump's nodes, whole rows (ingest/profile/debug_dump_duckdb.py)
    graph_file: NodeFile | None = None  # the same rows, as the source's graph nodes

    def add_workload(self, workload: Workload | None) -> str | None:
        if workload is None:
            return None
        self.workloads.setdefault(workload.key, workload)
        return workload.key

    @property
    def row_count(self) -> int:
        streamed = sum(part.count for part in (self.node_table, self.node_file, self.graph_file) if part is not None)
        return streamed + len(self.nodes) + len(self.graph_nodes) + len(self.ir_calls) + len(self.tasks) + len(self.records)
