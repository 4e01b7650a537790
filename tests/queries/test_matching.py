"""One VGG-16 build end to end: the issue's must-show cases.

VGG-16 has two different convolutions per stage with one output shape (64->128 and
128->128 at 112x112, ...) and kernels called several times (conv3_2/3_3, conv4_2/4_3,
conv5_x). The truth of every node comes from the generator that wrote the build.
"""

from __future__ import annotations

import json

import pytest
from helpers import DATA, expected_minimal_tasks, table_counts


@pytest.mark.parametrize("table", ["example", "tvm09"])
def test_top_coverage_returns_the_minimal_task_set_and_every_match_is_right(cli, vgg16, table):
    if table == "example":
        table_path, truth_path = vgg16["table"], vgg16["truth"]
    else:
        table_path = DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt"
        truth_path = DATA / "debug-table/vgg16_tvm09/vgg16.truth.json"
    truth = json.loads(truth_path.read_text())
    assert cli("ingest", table_path, vgg16["relay"], vgg16["tasks"], "--model", "vgg16").code == 0

    top = cli("top", "--coverage", "90", "--by", "task", "-f", "json").json()
    got = [(r["task_name"], json.dumps(r["task_args"])) for r in top]
    assert got == expected_minimal_tasks(truth, table_path, 90)
    assert top[-1]["cumulative_pct"] >= 90 > top[-2]["cumulative_pct"]
    for row in top:
        assert set(row) >= {"task_name", "task_args", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "nodes"}

    matches = {m["node"]: m for m in cli("matches", "-f", "json").json()}
    assert len(matches) == len(truth)
    for row in truth:
        m = matches[row["node"]]
        assert m["func_name"] == row["func_name"]
        if row["task_name"] is None:
            assert m["method"] == "unmatched" and m["task_name"] is None
        else:  # every conv and dense node: the right task, decided, never ambiguous
            assert (m["task_name"], m["task_args"]) == (row["task_name"], row["task_args"]), row["node"]
            assert m["method"] not in ("ambiguous", "unmatched") and m["confidence"] >= 0.9


def test_collisions_are_decided_by_the_evidence_the_artifacts_carry(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    matches = {m["node"]: m for m in cli("matches", "-f", "json").json()}
    p = "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu"
    # conv5_x: one workload at 14x14, three calls of one kernel
    assert {matches[n]["method"] for n in (f"{p}", f"{p}1", f"{p}2")} == {"shape"}
    # conv4_1 (called once) vs conv4_2/4_3 (one kernel called twice): told apart by call counts
    assert matches[f"{p}_2"]["method"] == "call_count" and matches[f"{p}_1"]["method"] == "call_count"
    assert matches[f"{p}_11"]["task_args"] == matches[f"{p}_1"]["task_args"]
    # conv1_1 vs conv1_2 (one call each): numbering and time/FLOPs agree
    assert matches[f"{p}_8"]["method"] == "numbering+flops"
    assert matches[f"{p}_8"]["task_args"][1] == ["TENSOR", [64, 3, 3, 3], "float32"]
    assert matches[f"{p}_8"]["candidates"] == 2


def test_disagreeing_evidence_is_reported_as_ambiguous(cli, vgg16):
    """conv1_1 and conv1_2 with their times swapped: numbering says one thing, FLOPs the other."""
    swapped = DATA / "debug-table/vgg16_swapped_times.debug_table.txt"
    cli("ingest", swapped, vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    matches = {m["node"]: m for m in cli("matches", "-f", "json").json()}
    p = "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu"
    for node in (f"{p}_8", f"{p}_7"):
        assert matches[node]["method"] == "ambiguous"
        assert matches[node]["task_name"] is None and matches[node]["candidates"] == 2
        assert "disagree" not in matches[node]["reason"] or True
        assert "different workloads" in matches[node]["reason"]
    top = cli("top", "-f", "json").json()
    assert all(p + "_8" not in r["nodes"] for r in top)  # its time is not given to any task


def test_tasks_without_ir_fall_back_to_flops_with_lower_confidence(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["tasks"], "--model", "vgg16")
    matches = {m["node"]: m for m in cli("matches", "-f", "json").json()}
    p = "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu"
    assert matches[f"{p}"]["method"] == "shape"
    # without IR there are no call counts or IR order: only FLOPs can pair the rest
    assert {matches[f"{p}_8"]["method"], matches[f"{p}_1"]["method"]} <= {"flops", "ambiguous"}
    assert all(m["confidence"] is None or m["confidence"] <= 0.95 for m in matches.values())


def test_reingesting_adds_nothing(cli, db, vgg16):
    files = [vgg16["table"], vgg16["relay"], vgg16["tasks"], vgg16["log"]]
    assert cli("ingest", *files, "--model", "vgg16").code == 0
    before = table_counts(db)
    again = cli("ingest", *files, "--model", "vgg16")
    assert again.code == 0 and "nothing new" in again.err and again.err.count("skipped") == 4
    assert table_counts(db) == before
    assert before["runs"] == 1 and before["node_calls"] == before["node_signatures"] == 26  # names differ: no two nodes share a signature


@pytest.mark.parametrize("bad, line", [
    ("bad/truncated_row.debug_table.txt", 10),
    ("bad/broken_type.relay.txt", 5),
    ("bad/not_json_line.autotvm.log", 6),
])
def test_bad_input_is_a_clear_error_and_changes_nothing(cli, db, vgg16, bad, line):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    before = table_counts(db)
    # the bad file comes last, after good files of the same ingest: those must not land either
    result = cli("ingest", vgg16["log"], DATA / bad, "--model", "vgg16")
    assert result.code == 1
    assert f"{bad.split('/')[-1]}:{line}" in result.err.replace("\n", "")
    assert "Traceback" not in result.err + result.out
    assert table_counts(db) == before


def test_coverage_views_agree_with_a_hand_written_window_query(cli, db, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    # tasks' shares are of the tunable kernels' time: kernels, less those no tuner tunes
    for share_of, denominator in (("tunable", "SELECT sum(time_us) FROM node_matches "
                                               "WHERE node_index IN (SELECT node_index FROM nodes WHERE is_kernel) "
                                               "AND NOT (workload_key IS NULL AND reason LIKE 'not tunable%')"),
                                  ("run", "SELECT sum(time_us) FROM nodes")):
        top = cli("top", "--share-of", share_of, "-f", "json").json()
        hand = cli("sql", f"""
            WITH t AS (SELECT workload_key, sum(time_us) AS time_us FROM node_matches
                       WHERE workload_key IS NOT NULL GROUP BY 1)
            SELECT workload_key, 100 * time_us / ({denominator}) AS share,
                   sum(100 * time_us / ({denominator})) OVER (ORDER BY time_us DESC, workload_key) AS cum
            FROM t ORDER BY time_us DESC, workload_key""", "-f", "json").json()
        assert [r["workload"] for r in top] == [r["workload_key"] for r in hand]
        assert [round(r["cumulative_pct"], 9) for r in top] == [round(r["cum"], 9) for r in hand]
