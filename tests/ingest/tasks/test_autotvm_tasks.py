"""AutoTVM tasks and logs: reprs, users' printouts, v0.1/v0.2 logs, tophub, VTA."""

from __future__ import annotations

import json

import pytest
from helpers import DATA, parse, sample

from hotdb.errors import ParseError


def test_task_reprs(vgg16):
    name, parsed = parse(vgg16["tasks"])
    assert name == "autotvm-tasks"
    lines = vgg16["tasks"].read_text().splitlines()
    assert len(parsed.tasks) == len(lines) == 15
    first = parsed.tasks[0]
    assert first.task_name == "conv2d_NCHWc.x86"
    assert json.loads(first.task_args)[0] == ["TENSOR", [1, 3, 224, 224], "float32"]
    assert first.workload_key.startswith("conv2d float32 d=1x3x224x224 w=64x3x3x3")


def test_tuning_log_tasks_and_records(vgg16):
    _, parsed = parse(vgg16["log"])
    lines = vgg16["log"].read_text().splitlines()
    assert len(parsed.records) == len(lines)
    distinct = {(json.loads(l)["input"][1], json.dumps(json.loads(l)["input"][2])) for l in lines}
    assert len(parsed.tasks) == len(distinct)
    assert parsed.records[0].raw_line == lines[0]
    assert parsed.records[0].config_index == json.loads(lines[0])["config"]["index"]


def test_tophub_v02_sample():
    path = sample("autotvm_tophub_llvm_v0.04.log")
    _, parsed = parse(path)
    records = [l for l in path.read_text().splitlines() if l.startswith("{")]
    assert len(parsed.records) == len(records)
    assert {t.task_name for t in parsed.tasks} == {json.loads(l)["input"][1] for l in records}
    assert all(t.workload_key for t in parsed.tasks if t.task_name == "conv2d_NCHWc.x86")


def test_one_record_per_task_name_sample():
    _, parsed = parse(sample("autotvm_tophub_one_record_per_task_name.log"))
    by_name = {t.task_name: t for t in parsed.tasks}
    assert by_name["depthwise_conv2d_nchw.cuda"].op_family == "depthwise_conv2d"
    assert by_name["dense_small_batch.gpu"].workload_key == "dense float16 d=1x512 w=1000x512"
    assert by_name["conv2d_transpose_nchw.cuda"].op_family == "conv2d_transpose"
    # VTA packs data NCHW1n16c and kernels OIHW16o16i: (1, 1, 208, 208, 1, 16) is 16 channels
    assert by_name["conv2d_packed.vta"].workload_key == "conv2d int8 d=1x16x208x208 w=32x16x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"


def test_non_json_log_line_names_the_line():
    with pytest.raises(ParseError) as err:
        parse(DATA / "bad/not_json_line.autotvm.log")
    assert err.value.line == 6 and "JSON" in err.value.message


def test_autotvm_v01_logs_use_the_workload_tuple():
    _, parsed = parse(sample("autotvm_tophub_llvm_v0.01_oldformat.log"))
    _, v02 = parse(sample("autotvm_tophub_llvm_v0.04.log"))
    first = parsed.tasks[0]
    assert first.task_name == "topi_x86_conv2d_NCHWc"
    assert first.workload_key == "conv2d float32 d=1x3x224x224 w=64x3x7x7 s=2x2 p=3,3,3,3 dl=1x1 g=1"
    # the same tophub workloads in both eras canonicalise alike
    assert {t.workload_key for t in parsed.tasks} & {t.workload_key for t in v02.tasks}
    _, cuda = parse(sample("autotvm_tophub_cuda_v0.01_oldformat_first100.log"))
    assert {t.op_family for t in cuda.tasks} >= {"conv2d", "depthwise_conv2d"}
    assert any(t.variant == "winograd" for t in cuda.tasks)


def test_lenient_task_listing():
    name, parsed = parse(DATA / "autotvm-tasks/listing.txt")
    assert name == "autotvm-tasks" and len(parsed.tasks) == 4
    assert parsed.tasks[0].workload_key == "conv2d float32 d=1x3x224x224 w=64x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    assert parsed.tasks[3].workload_key == "dense float32 d=1x4096 w=1000x4096"
    dense = parsed.tasks[2]  # tensors only: kept, and its shapes are enough for dense
    assert json.loads(dense.task_args)[1] == ["TENSOR", [4096, 25088], "float32"]
    assert dense.workload_key == "dense float32 d=1x25088 w=4096x25088"
    # the heading is part of a listing; the closing "Done." is not a task, and is said once
    assert not any("Extracted 4 tasks" in w for w in parsed.warnings)
    assert any("1 line is not a task and was skipped (line 6)" in w for w in parsed.warnings)


def test_tasks_command_one_row_per_task_and_target(cli, vgg16):
    cli("ingest", vgg16["tasks"], vgg16["log"], "--model", "vgg16")
    rows = cli("tasks", "-f", "json").json()
    assert len(rows) == 15 and all(r["target"] == "llvm -mcpu=skylake-avx512" for r in rows)
    records = [json.loads(l) for l in vgg16["log"].read_text().splitlines()]
    first = rows[0]
    mine = [r for r in records if r["input"][1] == first["task_name"] and r["input"][2] == first["task_args"]]
    assert first["records"] == len(mine)
    assert first["best_cost_us"] == pytest.approx(min(sum(r["result"][0]) / len(r["result"][0]) for r in mine if r["result"][1] == 0) * 1e6)
    assert set(first) >= {"task_name", "task_args", "workload", "best_cost_us"}
