"""`profile-report`: Report.json(), .csv() and the printed table of every executor: calls, shapes, shares, and what a bad report says."""

from __future__ import annotations

import pytest
from helpers import DATA, parse, sample, table_counts

REPORTS = DATA / "profile-report"


@pytest.mark.parametrize("suffix", ["json", "csv", "txt"])
def test_profile_report_encodings_agree(suffix):
    name, parsed = parse(REPORTS / f"resnet50_nhwc.report.{suffix}")
    assert name == "profile-report"
    by_kernel = {}
    for n in parsed.nodes:
        k = by_kernel.setdefault(n.func_name, [0, 0.0, n])
        k[0] += n.calls
        k[1] += n.time_us
    conv = by_kernel["tvmgen_default_fused_nn_conv2d_add_nn_relu_1"]
    assert conv[0] == 3  # three calls, aggregated or not
    assert conv[1] == pytest.approx(2875.5 * 3.03, rel=1e-4)
    node = conv[2]
    assert node.input_shapes == [[1, 56, 56, 64], [3, 3, 64, 64], [1, 1, 1, 64]] and node.out_shape == [1, 56, 56, 64]
    assert node.data_shape_logical == [1, 64, 56, 56] and node.weight_shape_logical == [64, 64, 3, 3]
    assert node.out_shape_logical == [1, 64, 56, 56]
    assert node.args_flat == "1,56,56,64,3,3,64,64,1,1,1,64,1,56,56,64"
    assert node.device == "cpu0" and len(node.kernel_hash) == 16
    assert sum(n.calls for n in parsed.nodes) == 15


def test_profile_report_table_reads_thousands_separators_and_stops_at_sum():
    _, parsed = parse(REPORTS / "resnet50_nhwc.report.txt")
    assert len(parsed.nodes) == 10
    assert parsed.nodes[0].time_us == pytest.approx(8712.76)
    assert "Graph executor" in parsed.run.variant


def test_report_and_ansor_log_of_one_model_match_by_argument_shapes(cli):
    log = sample("ansor_cilog_resnet-50-NHWC-B1-llvm.json")
    assert cli("ingest", REPORTS / "resnet50_nhwc.report.json", log, "--model", "resnet50").code == 0
    matches = {m["func_name"]: m for m in cli("matches", "-f", "json").json()}
    conv = matches["tvmgen_default_fused_nn_conv2d_add_nn_relu_1"]
    assert conv["method"] == "workload" and conv["confidence"] == 1.0
    assert conv["task_name"] == "2350d19dc42a0665244368384c66b3a5"
    assert conv["task_args"][1:] == [1, 56, 56, 64, 3, 3, 64, 64, 1, 1, 1, 64, 1, 56, 56, 64]
    for name in ("tvmgen_default_fused_nn_conv2d_add_nn_relu", "tvmgen_default_fused_nn_conv2d_add",
                 "tvmgen_default_fused_nn_conv2d_add_add_nn_relu", "tvmgen_default_fused_nn_global_avg_pool2d"):
        assert matches[name]["method"] == "workload", name
        assert matches[name]["task_name"], name
    assert matches["tvmgen_default_fused_layout_transform"]["method"] == "unmatched"
    top = cli("top", "--by", "task", "-f", "json").json()
    assert top[0]["task_name"] == "2350d19dc42a0665244368384c66b3a5" and top[0]["calls"] == 3


@pytest.mark.parametrize("text, line", [
    ('{"calls": [{"Name": {"string": "k"}}]', 1),
    ("Argument Shapes,Count,Device,Duration (us),Name\n\"float32[1]\",1,\"cpu0\",12.5,\"k\"\n\"float32[1]\",1,\"cpu0\"\n", 3),
    ("Argument Shapes,Count,Device,Duration (us),Name\n\"float32[1]\",1,\"cpu0\",-3,\"k\"\n", 2),
    ('{"i": [["[\\"abc\\"", "llvm"], [[], []]], "r": [[1e-3], 0, 1.0, 1], "v": "v0.6"}\n', 1),
])
def test_malformed_reports_and_logs(tmp_path, cli, db, text, line):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    before = table_counts(db)
    result = cli("ingest", path, "--model", "m")
    assert result.code == 1 and f"bad.txt:{line}" in result.err.replace("\n", "") or (line == 1 and "bad.txt" in result.err)
    assert "Traceback" not in result.err
    assert table_counts(db) == before
