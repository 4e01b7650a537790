"""`debug-dump`: the graph debug executor's dump folder (docs/formats.md).

A `_tvmdbg_ctx_*` (<= 0.7) or `_tvmdbg_device_*` folder, or its parent, holding

* `_tvmdbg_graph_dump.json`: the graph JSON rewritten in place: `op` is the kernel
  symbol (or "param"), `inputs` are node names, `shape` the node's first output;
  <= 0.6 wrote it as a JSON string literal;
* `_tvmdbg_execution_trace.json`: Chrome trace events, B/E pairs per node in execution
  order, params included with zero length, `ts` in microseconds.

Every kernel node becomes a node of the run, in execution order, with its time and the
shapes of its inputs, so that matching is exact (ladder rule 2). Given together with
the printed table of the same run, the table's times are kept and the dump lends its
shapes (api.py merges them into one run).
"""

from __future__ import annotations

import json

from hotdb.ingest.profile.debug_dump_duckdb import read_dump
from hotdb.ingest.source import DUMP_FILES, Source
from hotdb.rows import NodeRow, Parsed, RunInfo
from hotdb.rows.derive import derive


class DebugDump:
    name = "debug-dump"
    role = "profile"
    reads = "graph debug executor dump folder (_tvmdbg_device_*/_tvmdbg_ctx_*): graph dump + execution trace"
    detects = "a folder holding _tvmdbg_graph_dump.json (and _tvmdbg_execution_trace.json)"

    def sniff(self, source: Source) -> bool:
        return any(name == DUMP_FILES[0] for name, _ in source.members)

    def parse(self, source: Source) -> Parsed:
        """DuckDB reads the two files and pairs the events (debug_dump_duckdb.py); each distinct
        kernel signature becomes a row here, once."""
        nodes = read_dump(source.member(DUMP_FILES[0]), source.member(DUMP_FILES[1]), kernel_row)
        return Parsed(role="profile", run=RunInfo(variant="debug dump", device=_device(source)),
                      node_file=nodes, graph_file=nodes)


def kernel_row(op, attrs, shape, input_shapes, num_inputs: int) -> NodeRow:
    """A kernel node's row from its graph dump fields (decoded JSON; `input_shapes` None
    where an input is not given by name): its name, index and times are the run's."""
    attrs = attrs if isinstance(attrs, dict) else {}
    dtype = str(attrs.get("T", "")).removeprefix("type: ") or None
    layouts = tuple(sorted((k, str(v)) for k, v in attrs.items() if "layout" in k and v))
    return derive(NodeRow(
        node_index=0, node_name="", func_name=str(attrs.get("func_name") or op), time_us=0.0,
        out_shape=list(shape or []) or None, out_dtype=dtype, input_shapes=input_shapes, num_inputs=num_inputs,
        num_outputs=int(attrs.get("num_outputs", 1)), kernel_hash=attrs.get("hash"),
        layouts=json.dumps(dict(layouts)) if layouts else None))


def _device(source: Source) -> str | None:
    for part in (source.path.name, source.path.parent.name):
        for prefix in ("_tvmdbg_device_", "_tvmdbg_ctx_"):
            if part.startswith(prefix):
                return part.removeprefix(prefix)
    return None
