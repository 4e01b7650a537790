"""Rows: what every reader and a live capture produce, and what the loader stores.

* records.py: one dataclass per table (NodeRow, IrCallRow, TaskRow, ...);
* parsed.py: Parsed, everything one input yields;
* lists.py: rows kept compactly while a large input is read (Arrow, spilled to files);
* arrow.py: rows as Arrow tables, a value no column can hold named on its line;
* derive.py: what a kernel's symbol and shapes say of it (family, numbering, workload).

Readers (hotdb/ingest/) and the capture (hotdb/capture/) both import from here, never
from each other.
"""

from hotdb.rows.arrow import ArrowRows, row_frame, unstorable
from hotdb.rows.lists import (
    IrCallList,
    NodeFile,
    NodeList,
    NodeTable,
    RecordList,
    SampleList,
    Samples,
    handed_over,
    ir_call_schema,
    node_frame,
    node_schema,
    record_schema,
    sample_schema,
)
from hotdb.rows.parsed import ROLES, Parsed
from hotdb.rows.records import (
    CALL_COLUMNS,
    FAILED_RUN_SECS,
    INT32_MAX,
    SIGNATURE_COLUMNS,
    GraphNodeRow,
    IrCallRow,
    NodeRow,
    RunInfo,
    SampleRow,
    Shape,
    TaskRow,
    TuningRecordRow,
    column_names,
    measured_record,
)

__all__ = [
    "ArrowRows", "CALL_COLUMNS", "FAILED_RUN_SECS", "INT32_MAX", "ROLES", "SIGNATURE_COLUMNS", "GraphNodeRow", "IrCallList", "IrCallRow",
    "NodeFile", "NodeList", "NodeRow", "NodeTable", "Parsed", "RecordList", "RunInfo", "SampleList", "SampleRow", "Samples",
    "Shape", "TaskRow", "TuningRecordRow", "column_names", "handed_over", "ir_call_schema", "measured_record", "node_frame",
    "node_schema", "record_schema", "row_frame", "sample_schema", "unstorable",
]
