"""`graph-json`: the graph executor's JSON lends its input shapes to a printed table of the same build."""

from __future__ import annotations

from helpers import DATA, check_all_exact

BUILD = DATA / "debug-dump/vgg16"
GRAPH = DATA / "graph-json/vgg16.graph.json"


def test_graph_json_lends_shapes_to_a_printed_table(cli, vgg16):
    result = cli("ingest", BUILD / "vgg16.debug_table.txt", GRAPH, vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    assert result.code == 0 and "graph-json (graph)" in result.err
    check_all_exact(cli, BUILD / "vgg16.truth.json")
