"""`graph-json`: the graph executor's JSON (`lib.get_graph_json()`, graph.json; docs/formats.md).

Structure without times: every `tvm_op` node with its kernel symbol and the shapes of
its inputs (entry id = node_row_ptr[nid] + output index; shapes and dtypes per entry in
attrs). Stored as graph nodes, they lend input shapes to the nodes of a run of the same
model, which makes a printed debug table matchable by ladder rule 2.
"""

from __future__ import annotations

import json

from hotdb.ingest.source import Source
from hotdb.rows import INT32_MAX, GraphNodeRow, Parsed
from hotdb.rows.derive import derive_kernel_columns

_LAYOUT_KEYS = ("data_layout", "kernel_layout", "out_layout", "layout", "src_layout", "dst_layout")


class GraphJson:
    name = "graph-json"
    role = "graph"
    reads = "graph executor JSON (lib.get_graph_json(), graph.json): kernel symbols with input shapes, no times"
    detects = "a JSON object with \"nodes\", \"arg_nodes\" and \"attrs\" holding \"shape\""

    def sniff(self, source: Source) -> bool:
        head = source.head.lstrip()
        return head.startswith("{") and '"nodes"' in head and '"arg_nodes"' in head

    def parse(self, source: Source) -> Parsed:
        graph = load_json(source)
        parsed = Parsed(role="graph")
        parsed.graph_nodes = graph_nodes(source, graph)
        if not parsed.graph_nodes:
            raise source.error(None, "the graph has no tvm_op nodes")
        return parsed


def load_json_value(source: Source):
    """The file's JSON value; TVM <= 0.6 wrote graphs as a JSON string literal holding the JSON."""
    try:
        value = json.loads(source.text)
        if isinstance(value, str):
            value = json.loads(value)
    except json.JSONDecodeError as exc:
        raise source.error(exc.lineno, f"expected JSON: {exc.msg} at column {exc.colno}") from None
    return value


def load_json(source: Source) -> dict:
    value = load_json_value(source)
    if not isinstance(value, dict) or not isinstance(value.get("nodes"), list):
        raise source.error(None, "expected a graph JSON object with a \"nodes\" list", field="nodes")
    return value


def graph_nodes(source: Source, graph: dict) -> list[GraphNodeRow]:
    """Kernel nodes of a graph JSON with their input and output shapes."""
    nodes = graph["nodes"]
    attrs = graph.get("attrs") or {}
    shapes = _attr_list(source, attrs, "shape")
    dtypes = _attr_list(source, attrs, "dltype") if "dltype" in attrs else None
    row_ptr = graph.get("node_row_ptr")
    if row_ptr is None:  # old graphs: one entry per output, in node order
        row_ptr, total = [], 0
        for node in nodes:
            row_ptr.append(total)
            total += int((node.get("attrs") or {}).get("num_outputs", 1))
        row_ptr.append(total)
    rows = []
    for nid, node in enumerate(nodes):
        if not isinstance(node, dict):
            raise source.error(None, "expected a node object", field=f"nodes[{nid}]")
        if node.get("op") != "tvm_op":
            continue
        node_attrs = node.get("attrs") or {}
        if not isinstance(node_attrs, dict):
            raise source.error(None, "expected attrs to be an object", field=f"nodes[{nid}].attrs")
        field = f"nodes[{nid}]"
        try:
            entries = [row_ptr[int(i[0])] + int(i[1]) for i in node.get("inputs", [])]
            out_entry = row_ptr[nid]
            input_shapes = [list(shapes[e]) for e in entries]
            out_shape = list(shapes[out_entry])
        except (IndexError, TypeError, ValueError, KeyError):
            raise source.error(None, "inputs point outside the graph's shape list", field=field) from None
        if not all(isinstance(d, int) and abs(d) <= INT32_MAX for s in input_shapes + [out_shape] for d in s):
            raise source.error(None, "expected shapes as lists of integers below 2^31", field=field)
        try:
            layouts = {k: str(node_attrs[k]) for k in _LAYOUT_KEYS if node_attrs.get(k)}
            row = GraphNodeRow(
                node_index=nid, node_name=str(node.get("name")), func_name=str(node_attrs.get("func_name") or node.get("name")),
                input_shapes=input_shapes, input_dtypes=[str(dtypes[e]) for e in entries] if dtypes else None,
                out_shape=out_shape, out_dtype=str(dtypes[out_entry]) if dtypes else None,
                kernel_hash=str(node_attrs["hash"]) if node_attrs.get("hash") else None,
                layouts=json.dumps(layouts, sort_keys=True) if layouts else None)
        except (IndexError, TypeError, AttributeError):
            raise source.error(None, "node attributes or dtypes do not fit the graph", field=field) from None
        derive_kernel_columns(row)
        rows.append(row)
    return rows


def _attr_list(source: Source, attrs: dict, key: str) -> list:
    value = attrs.get(key)
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], list)):
        raise source.error(None, f"expected attrs.{key} = [\"list_...\", [...]]", field=f"attrs.{key}")
    return value[1]
