"""`relax`: Relax TVMScript in every form the pipeline leaves, and a Relax VM profile matched to MetaSchedule tasks by argument shapes."""

from __future__ import annotations

import json

import pytest
from helpers import DATA, parse, relax_vm_report


def test_relax_script_forms():
    _, high = parse(DATA / "relax/small_convnet.relax.py")
    convs = [c for c in high.ir_calls if c.op_name == "nn.conv2d"]
    assert [c.workload_key for c in convs] == [
        "conv2d float32 d=1x3x8x8 w=16x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x16x8x8 w=16x16x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"]
    assert next(c for c in high.ir_calls if c.op_name == "matmul").workload_key == "dense float32 d=1x1024 w=10x1024"
    _, fused = parse(DATA / "relax/small_convnet.fused.relax.py")
    call = next(c for c in fused.ir_calls if c.primfunc == "fused_conv2d_add_relu")
    assert call.op_family == "conv2d" and call.result_shapes == [[1, 16, 8, 8]]
    assert call.args_flat == "1,3,8,8,16,3,3,3,1,16,1,1,1,16,8,8"
    assert [c.primfunc for c in fused.ir_calls].count("reshape") == 2


def test_relax_profile_matches_metaschedule_tasks_by_argument_shapes(cli, tmp_path):
    report = relax_vm_report(tmp_path / "small_convnet.report.json")
    result = cli("ingest", report, DATA / "relax/small_convnet.fused.relax.py", DATA / "ms-database/small_convnet",
                 "--model", "small_convnet")
    assert result.code == 0, result.err
    matches = {m["func_name"]: m for m in cli("matches", "-f", "json").json()}
    tuned = matches["fused_conv2d_add_relu"]
    assert tuned["method"] == "workload" and tuned["task_name"] == "7460716542787474096"
    other = matches["fused_conv2d1_add_relu"]
    assert other["method"] == "workload" and other["task_name"] is None  # in the IR, not in the database
    assert matches["vm.builtin.check_tensor_info"]["reason"] == "not tunable: vm_builtin"
    assert matches["reshape"]["method"] == "unmatched"
    # tunable as MetaSchedule sees it: every PrimFunc the Relax IR calls is a task, reshapes aside
    assert matches["reshape"]["reason"] == "not tunable: reshape"
    assert "transpose" in matches and not (matches["transpose"]["reason"] or "").startswith("not tunable")
    families = {r["op"]: r["tunable"] for r in cli("top", "--by", "op", "-f", "json").json()}
    assert families["transpose"] is True and families["reshape"] is False and families["vm_builtin"] is False
    tasks = cli("tasks", "--model", "small_convnet", "-f", "json").json()
    assert tasks[0]["tuner"] == "meta_schedule" and tasks[0]["records"] == 4
    assert tasks[0]["best_cost_us"] == pytest.approx(min(
        json.loads(l)[1][1][0] for l in (DATA / "ms-database/small_convnet/database_tuning_record.json").read_text().splitlines()) * 1e6)
