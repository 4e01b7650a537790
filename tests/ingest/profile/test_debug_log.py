"""`debug-log`: the graph debug runtime's log lines of both eras, one profile, shapes lent by a graph JSON."""

from __future__ import annotations

from helpers import DATA


# -- logs and tables of older runtimes ------------------------------------------------
def test_debug_runtime_log_lines_of_both_eras_give_one_profile(cli, tmp_path):
    old = cli("--db", tmp_path / "old.duckdb", "ingest", DATA / "debug-log/vgg16.runtime07.log", "--model", "m", use_db=False)
    new = cli("--db", tmp_path / "new.duckdb", "ingest", DATA / "debug-log/vgg16.executor08.log", "--model", "m", use_db=False)
    assert "as debug-log (profile): 26 rows" in old.err and "as debug-log (profile): 26 rows" in new.err
    query = "SELECT node_name, round(time_us, 3) AS t FROM nodes ORDER BY node_index"
    old_nodes = cli("--db", tmp_path / "old.duckdb", "sql", query, "-f", "json", use_db=False).json()
    new_nodes = cli("--db", tmp_path / "new.duckdb", "sql", query, "-f", "json", use_db=False).json()
    assert [n["t"] for n in old_nodes] == [n["t"] for n in new_nodes]
    assert [("tvmgen_default_" + n["node_name"]) for n in old_nodes] == [n["node_name"] for n in new_nodes]
    samples = cli("--db", tmp_path / "old.duckdb", "sql", "SELECT count(*) AS n FROM node_samples", "-f", "json",
                  use_db=False).json()
    assert samples == [{"n": 78}]  # 26 nodes x 3 repeats


def test_debug_runtime_log_takes_shapes_from_a_graph_json(cli):
    cli("ingest", DATA / "debug-log/vgg16.executor08.log", DATA / "graph-json/vgg16.graph.json",
        DATA / "thread/vgg16.relay.txt", "--model", "m")
    matched = [m for m in cli("matches", "-f", "json").json() if m["method"] == "workload"]
    # every node whose name is its kernel's symbol gets the graph's input shapes (TVM <= 0.9
    # names a repeated call site `func1`: those stay unmatched, said so in docs/formats.md)
    assert len(matched) == 12
