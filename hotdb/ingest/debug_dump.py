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

from hotdb.ingest.base import DUMP_FILES, Source
from hotdb.ingest.derive import derive
from hotdb.ingest.graph_json import load_json_value
from hotdb.ingest.rows import GraphNodeRow, NodeRow, Parsed, RunInfo


class DebugDump:
    name = "debug-dump"
    role = "profile"
    reads = "graph debug executor dump folder (_tvmdbg_device_*/_tvmdbg_ctx_*): graph dump + execution trace"
    detects = "a folder holding _tvmdbg_graph_dump.json (and _tvmdbg_execution_trace.json)"

    def sniff(self, source: Source) -> bool:
        return any(name == DUMP_FILES[0] for name, _ in source.members)

    def parse(self, source: Source) -> Parsed:
        graph_source = source.member(DUMP_FILES[0])
        trace_source = source.member(DUMP_FILES[1])
        graph = _load(graph_source)
        nodes = graph.get("nodes")
        if not isinstance(nodes, list):
            raise graph_source.error(None, "expected a graph dump with a \"nodes\" list", field="nodes")
        by_name = {}
        for i, node in enumerate(nodes):
            if not isinstance(node, dict) or "name" not in node:
                raise graph_source.error(None, "expected a node object with a name", field=f"nodes[{i}]")
            by_name[node["name"]] = node
        times = _durations(trace_source)
        parsed = Parsed(role="profile", run=RunInfo(variant="debug dump", device=_device(source)))
        derived: dict = {}  # a large graph repeats a few hundred signatures
        layouts_json: dict = {}
        for name, begin, duration in times:
            node = by_name.get(name)
            if node is None:
                raise trace_source.error(None, f"trace event for node {name!r}, which the graph dump does not have", field="traceEvents")
            if node.get("op") in ("param", "null"):
                continue
            inputs = node.get("inputs") or []
            try:
                input_shapes = [list(by_name[i]["shape"]) if isinstance(i, str) else None for i in inputs]
            except KeyError as exc:
                raise graph_source.error(None, f"node {name!r} has input {exc.args[0]!r}, which is not a node", field="inputs") from None
            attrs = node.get("attrs") or {}
            dtype = str(attrs.get("T", "")).removeprefix("type: ") or None
            layouts = tuple(sorted((k, str(v)) for k, v in attrs.items() if "layout" in k and v))
            if layouts not in layouts_json:
                layouts_json[layouts] = json.dumps(dict(layouts)) if layouts else None
            row = derive(NodeRow(
                node_index=len(parsed.nodes), node_name=name, func_name=str(attrs.get("func_name") or node.get("op")),
                time_us=duration, out_shape=list(node.get("shape") or []) or None, out_dtype=dtype,
                input_shapes=input_shapes if all(s is not None for s in input_shapes) else None,
                num_inputs=len(inputs), num_outputs=int(attrs.get("num_outputs", 1)), start_us=begin,
                kernel_hash=attrs.get("hash"),
                layouts=layouts_json[layouts],
            ), derived)
            parsed.nodes.append(row)
            parsed.graph_nodes.append(GraphNodeRow(
                node_index=row.node_index, node_name=name, func_name=row.func_name, input_shapes=row.input_shapes,
                input_dtypes=None, out_shape=row.out_shape, out_dtype=dtype, kernel_hash=row.kernel_hash,
                layouts=row.layouts, data_shape_logical=row.data_shape_logical,
                weight_shape_logical=row.weight_shape_logical, args_flat=row.args_flat))
        if not parsed.nodes:
            raise trace_source.error(None, "the trace has no kernel events")
        return parsed


def _load(source: Source) -> dict:
    value = load_json_value(source)
    if not isinstance(value, dict):
        raise source.error(None, "expected a JSON object")
    return value


def _durations(source: Source) -> list[tuple[str, float, float]]:
    """(node name, begin us, duration us) in execution order from B/E event pairs."""
    trace = _load(source)
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        raise source.error(None, "expected {\"traceEvents\": [...]}", field="traceEvents")
    open_events: dict[str, float] = {}
    out = []
    for i, event in enumerate(events):
        try:
            name, phase, ts = event["name"], event["ph"], float(event["ts"])
        except (KeyError, TypeError, ValueError):
            raise source.error(None, "expected events with name, ph and ts", field=f"traceEvents[{i}]") from None
        if phase == "B":
            open_events[name] = ts
        elif phase == "E":
            if name not in open_events:
                raise source.error(None, f"end event of {name!r} without a begin", field=f"traceEvents[{i}]")
            begin = open_events.pop(name)
            if ts < begin:
                raise source.error(None, f"node {name!r} ends before it begins", field=f"traceEvents[{i}]")
            out.append((name, begin, ts - begin))
    if open_events:
        raise source.error(None, f"{len(open_events)} events never end (truncated trace?), e.g. {next(iter(open_events))!r}", field="traceEvents")
    return out


def _device(source: Source) -> str | None:
    for part in (source.path.name, source.path.parent.name):
        for prefix in ("_tvmdbg_device_", "_tvmdbg_ctx_"):
            if part.startswith(prefix):
                return part.removeprefix(prefix)
    return None
