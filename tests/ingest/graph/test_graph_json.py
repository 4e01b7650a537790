"""Debug dump folders and graph JSON: input shapes make every match exact (rule 2)."""

from __future__ import annotations

import json

from helpers import DATA

BUILD = DATA / "debug-dump/vgg16"


DUMP = BUILD / "tvmdbg_vgg16"


GRAPH = DATA / "graph-json/vgg16.graph.json"


def check_all_exact(cli, truth_path):
    truth = json.loads(truth_path.read_text())
    matches = {m["node"]: m for m in cli("matches", "-f", "json").json()}
    assert len(matches) == len(truth)
    for row in truth:
        m = matches[row["node"]]
        if row["task_name"]:
            assert m["method"] == "workload" and m["confidence"] == 1.0, row["node"]
            assert (m["task_name"], m["task_args"]) == (row["task_name"], row["task_args"]), row["node"]
        else:
            assert m["method"] == "unmatched"


def drop_last_event(path):
    trace = json.loads(path.read_text())
    trace["traceEvents"].pop()
    path.write_text(json.dumps(trace))


def huge_kernel_shape(path):
    """A kernel's output shape beyond any INTEGER: no reader checks it, the loader must."""
    graph = json.loads(path.read_text())
    kernel = next(n for n in graph["nodes"] if n["op"] not in ("param", "null"))
    kernel["shape"] = [3000000000, *kernel["shape"][1:]]
    path.write_text(json.dumps(graph))


def test_graph_json_lends_shapes_to_a_printed_table(cli, vgg16):
    result = cli("ingest", BUILD / "vgg16.debug_table.txt", GRAPH, vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    assert result.code == 0 and "graph-json (graph)" in result.err
    check_all_exact(cli, BUILD / "vgg16.truth.json")
