"""Fallback warnings that carry workloads, as people pasted them (tests/data/fallback/,
SOURCES.md there says where each comes from): auto_scheduler's 'Cannot find tuned
schedules for target=..., workload_key=[...]' with its compute DAG, and AutoTVM's 'Cannot
find config for target=..., workload=(...)' in TVM >= 0.7's form and in the older one whose
tensors are flattened (dims..., dtype), several run into one paragraph and in typographic
quotes. Each warning is a task of its target."""

from __future__ import annotations

import json
import re

import pytest
from conftest import DATA, PASTES, parse
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest.autotvm import AutotvmTasks
from hotdb.ingest.base import Source
from hotdb.ingest.fallback import AnsorFallback
from hotdb.workload.targets import canonical

FALLBACK = PASTES / "fallback"  # real texts: ../shared/real/pastes/fallback/ (SOURCES.md here)
REAL_PASTE_FOLDERS = ("FALLBACK",)
M1_HASH = "ec4f7d9b3c9680b55f74f8646223586b"
WINOGRAD_KEY = ["3ea73fb9b0364374730d09e068821f95", 1, 56, 56, 64, 6, 6, 64, 64, 1, 56, 56, 64, 1, 56, 56, 64]


def _tasks(name: str) -> list:
    fmt, parsed = parse(FALLBACK / name)
    return fmt, parsed.tasks


# ---------------------------------------------------------------------------------------
# auto_scheduler


def test_ansor_warning_with_a_hash_only_key_gets_its_workload_from_the_dense_dag():
    fmt, tasks = _tasks("ansor_m1_bert_readme.md")
    assert fmt == "ansor-fallback" and len(tasks) == 1
    task = tasks[0]
    assert (task.tuner, task.task_name, json.loads(task.task_args)) == ("auto_scheduler", M1_HASH, [M1_HASH])
    assert canonical(task.target) == '{"keys":["metal","gpu"],"kind":"metal","max_num_threads":256}'
    assert task.line_no == 21 and task.variant == "hash only"
    # T_dense(i, j) += (placeholder[i, k]*placeholder[j, k]) over [1, 768] and [768, 768]
    assert task.workload_key == "dense float32 d=1x768 w=768x768"
    assert task.args_flat == "1,768,768,768,1,768"


def test_ansor_warning_with_function_name_and_flattened_key_is_a_winograd_conv2d_task():
    fmt, tasks = _tasks("tvm7703_pr.md")
    assert fmt == "ansor-fallback" and len(tasks) == 1
    task = tasks[0]
    assert task.task_name == WINOGRAD_KEY[0] and json.loads(task.task_args) == WINOGRAD_KEY
    assert canonical(task.target) == canonical("cuda -keys=cuda,gpu -max_num_threads=1024 -thread_warp_size=32")
    # the DAG's stages are data_pad, input_tile, B, data_pack: the function name says winograd
    assert (task.op_family, task.variant) == ("conv2d", "winograd")
    assert task.workload_key is None  # transformed weights: the task is found by its argument dims
    assert task.args_flat == ",".join(map(str, WINOGRAD_KEY[1:]))


def test_ansor_blocks_are_the_rule_the_warning_and_its_dag():
    lines = Source.read(FALLBACK / "ansor_m1_bert_readme.md").lines
    assert AnsorFallback().blocks(lines) == [(19, 24)]  # the rule, the warning, three DAG lines
    lines = Source.read(FALLBACK / "tvm7703_pr.md").lines
    assert AnsorFallback().blocks(lines) == [(4, 13)]  # the rule and the function name above it


def test_ansor_warnings_run_together_in_typographic_quotes_are_each_a_task():
    """The two real warnings in one paragraph, in “ ” as a page prints them: the DAG under
    the paragraph belongs to the last."""
    winograd = (FALLBACK / "tvm7703_pr.md").read_text().splitlines()[6]
    dense = (FALLBACK / "ansor_m1_bert_readme.md").read_text().splitlines()[20:24]
    text = (winograd + " " + "\n".join(dense) + "\n").replace('"', "\u201d")
    tasks = AnsorFallback().parse(Source.from_text("paragraph.txt", text)).tasks
    assert [(t.task_name, t.variant, t.workload_key) for t in tasks] == [
        (WINOGRAD_KEY[0], "flattened", None), (M1_HASH, "hash only", "dense float32 d=1x768 w=768x768")]
    assert json.loads(tasks[0].task_args) == WINOGRAD_KEY


def test_ansor_warning_with_a_key_cut_short_is_an_error_on_its_line(tmp_path):
    line = (FALLBACK / "tvm7703_pr.md").read_text().splitlines()[6]
    cut = tmp_path / "cut.txt"
    cut.write_text("Compile...\n" + line[: line.index(", 6, 6, 64")] + "\n")
    with pytest.raises(ParseError) as err:
        parse(cut)
    assert err.value.line == 2 and "workload key" in err.value.message


# ---------------------------------------------------------------------------------------
# AutoTVM


def test_autotvm_warnings_of_tvm_0_5_have_no_dilation():
    fmt, tasks = _tasks("tvm1730_issue.txt")
    assert fmt == "autotvm-tasks"
    assert [(t.task_name, t.line_no, canonical(t.target), t.workload_key) for t in tasks] == [
        ("conv2d", 6, '{"kind":"cuda"}', "conv2d float32 d=1x3x416x416 w=32x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"),
        ("conv2d", 7, '{"kind":"cuda"}', "conv2d float32 d=1x32x416x416 w=64x32x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1"),
    ]
    # args as AutoTVM serialises them, as the workload printed them
    assert json.loads(tasks[0].task_args) == [["TENSOR", [1, 3, 416, 416], "float32"], ["TENSOR", [32, 3, 3, 3], "float32"],
                                              [1, 1], [1, 1], "NCHW", "float32"]


def test_autotvm_warnings_of_tvm_0_6_keep_their_dilation_groups_and_transposes():
    _, tasks = _tasks("tvm_benchmark_cpp_issue1.txt")
    assert {canonical(t.target) for t in tasks} == {'{"kind":"cuda","model":"unknown"}'}
    assert [t.workload_key for t in tasks] == [
        "conv2d float32 d=1x3x112x112 w=64x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x64x112x112 w=64x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x64x112x112 w=64x64x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x64x112x112 w=64x64x1x1 s=2x2 p=0,0,0,0 dl=1x1 g=1",
    ]
    _, tasks = _tasks("tvm3950_issue.txt")
    assert [(t.task_name, t.op_family, t.workload_key) for t in tasks] == [
        ("conv2d", "conv2d", "conv2d float32 d=1x736x17x17 w=128x736x1x1 s=1x1 p=0,0,0,0 dl=1x1 g=1"),
        # (data, kernel, strides, padding, out_dtype): no dilation, no output padding
        ("conv2d_transpose_nchw", "conv2d_transpose", "conv2d_transpose float32 d=1x128x17x17 w=128x736x1x1 s=1x1 p=0,0,0,0 dl=1x1 g=1"),
        # groups=736 over 736 channels: the weight gradient of the issue's conv2d_grad
        ("group_conv2d_nchw", "depthwise_conv2d", "depthwise_conv2d float32 d=1x736x17x17 w=94208x1x17x17 s=1x1 p=0,0,0,0 dl=1x1 g=736"),
    ]


def test_autotvm_warnings_run_together_in_typographic_quotes_are_each_a_task():
    """Read as the forum rendered it (the CLI makes the quotes plain first; the reader does
    too): six warnings on line 5, in ‘ ’."""
    fmt, tasks = _tasks("discuss4857_curly_run_together.txt")
    assert fmt == "autotvm-tasks" and len(tasks) == 6 and {t.line_no for t in tasks} == {5}
    assert {canonical(t.target) for t in tasks} == {'{"kind":"cuda","model":"unknown"}'}
    assert [t.task_name for t in tasks] == ["conv2d"] * 2 + ["conv2d_transpose_nchw"] * 4
    assert tasks[0].workload_key == "conv2d float32 d=1x64x262x262 w=1x64x7x7 s=1x1 p=0,0,0,0 dl=1x1 g=1"
    assert tasks[5].workload_key == "conv2d_transpose float32 d=1x1024x16x16 w=1024x512x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1"


def test_autotvm_warnings_of_tvm_0_7_and_later():
    _, tasks = _tasks("discuss6277_arm_cpu.txt")  # the target holds -target=...
    assert [(t.task_name, t.variant, canonical(t.target)) for t in tasks] == [
        ("conv2d_nchw_winograd.arm_cpu", "winograd", canonical("llvm -device=arm_cpu -target=aarch64-linux-gnu"))]
    assert tasks[0].workload_key == "conv2d float32 d=1x3x224x224 w=64x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    _, tasks = _tasks("tvm16160_comment.md")  # quoted in a sentence, for no target
    assert [(t.task_name, t.target, t.workload_key) for t in tasks] == [
        ("dense_large_batch.gpu", None, "dense float32 d=1x1024 w=1000x1024")]
    _, tasks = _tasks("retinaface_issue7.txt")
    assert [t.workload_key.split(" s=")[0] for t in tasks] == [
        f"conv2d float32 d=1x64x80x60 w={o}x64x1x1" for o in (4, 8, 20)]
    assert {t.target for t in tasks} == {"llvm"}


def test_autotvm_blocks_are_the_warning_lines():
    lines = Source.read(FALLBACK / "tvm1730_issue.txt").lines
    assert AutotvmTasks().blocks(lines) == [(5, 7)]


def _warnings() -> list[str]:
    return [line for line in (FALLBACK / "tvm_benchmark_cpp_issue1.txt").read_text().splitlines() if "workload=(" in line]


@settings(max_examples=25, deadline=None)
@given(separators=st.lists(st.sampled_from([" ", "\n", "", "\n\n", " WARNING:autotvm:"]), min_size=3, max_size=3),
       curly=st.booleans())
def test_how_warnings_are_joined_and_quoted_changes_no_task(tmp_path_factory, separators, curly):
    WARNINGS = _warnings()  # noqa: N806 (read from FALLBACK)
    text = WARNINGS[0] + "".join(sep + line for sep, line in zip(separators, WARNINGS[1:]))
    if curly:
        text = re.sub(r"'(\w+)'", "\u2018\\1\u2019", text)  # as the forum printed them
    path = tmp_path_factory.mktemp("joined") / "warnings.txt"
    path.write_text(text + "\n", encoding="utf-8")
    _, expected = _tasks("tvm_benchmark_cpp_issue1.txt")
    _, parsed = parse(path)
    assert [(t.task_name, t.task_args, t.target, t.workload_key) for t in parsed.tasks] == \
        [(t.task_name, t.task_args, t.target, t.workload_key) for t in expected]


# ---------------------------------------------------------------------------------------
# Pasted texts, through the CLI


def _stored_tasks(cli) -> list[dict]:
    """The tasks table (`sql -f json` gives task_args as the JSON it holds)."""
    return cli("sql", "SELECT tuner, task_name, task_args, target, workload_key, args_flat FROM tasks "
                      "ORDER BY tuner, line_no, task_index", "-f", "json").json()


def test_an_issue_with_prose_around_the_warnings_is_ingested_with_their_tasks(cli):
    result = cli("ingest", FALLBACK / "tvm1730_issue.txt", "--model", "darknet")
    assert result.code == 0, result.err
    assert "as autotvm-tasks (tasks): 2 rows" in result.err
    assert "7 lines are not tasks and were skipped (lines 1, 3, 5, 9-10, 12-13)" in result.err
    tasks = _stored_tasks(cli)
    assert [(t["task_name"], t["target"], t["workload_key"]) for t in tasks] == [
        ("conv2d", '{"kind":"cuda"}', "conv2d float32 d=1x3x416x416 w=32x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"),
        ("conv2d", '{"kind":"cuda"}', "conv2d float32 d=1x32x416x416 w=64x32x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1"),
    ]


def test_a_forum_post_in_typographic_quotes_is_ingested_with_its_six_tasks(cli):
    result = cli("ingest", FALLBACK / "discuss4857_curly_run_together.txt", "--model", "unet")
    assert result.code == 0, result.err
    tasks = _stored_tasks(cli)
    assert len(tasks) == 6 and {t["target"] for t in tasks} == {'{"kind":"cuda","model":"unknown"}'}
    assert tasks[2]["task_args"][:2] == [["TENSOR", [1, 128, 128, 128], "float32"],
                                                     ["TENSOR", [128, 64, 3, 3], "float32"]]


def test_an_issue_and_a_readme_printing_one_ansor_warning_give_one_task(cli):
    for name in ("tvm7135_issue.md", "ansor_m1_bert_readme.md"):
        result = cli("ingest", FALLBACK / name, "--model", "bert")
        assert result.code == 0 and "as ansor-fallback (tasks): 1 rows" in result.err, result.err
    tasks = _stored_tasks(cli)
    assert len(tasks) == 2 and len({(t["task_name"], json.dumps(t["task_args"]), t["target"]) for t in tasks}) == 1
    assert tasks[0]["target"] == '{"keys":["metal","gpu"],"kind":"metal","max_num_threads":256}'
    assert tasks[0]["workload_key"] == "dense float32 d=1x768 w=768x768"


def test_a_paste_holding_both_tuners_warnings_is_cut_into_both(cli, tmp_path):
    """Two real posts one after the other, as a user pastes what two builds printed."""
    pasted = tmp_path / "both.txt"
    pasted.write_text((FALLBACK / "tvm7135_issue.md").read_text() + (FALLBACK / "tvm1730_issue.txt").read_text())
    result = cli("ingest", pasted, "--model", "m")
    assert result.code == 0, result.err
    assert "(lines 6-10) as ansor-fallback (tasks): 1 rows" in result.err
    assert "(lines 25-26) as autotvm-tasks (tasks): 2 rows" in result.err
    tasks = _stored_tasks(cli)
    assert [(t["tuner"], t["task_name"]) for t in tasks] == [("auto_scheduler", M1_HASH), ("autotvm", "conv2d"),
                                                              ("autotvm", "conv2d")]
