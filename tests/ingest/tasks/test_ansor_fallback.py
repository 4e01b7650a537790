"""Fallback warnings that carry workloads, as people pasted them (tests/data/ansor-fallback/,
SOURCES.md there says where each comes from): auto_scheduler's 'Cannot find tuned
schedules for target=..., workload_key=[...]' with its compute DAG, and AutoTVM's 'Cannot
find config for target=..., workload=(...)' in TVM >= 0.7's form and in the older one whose
tensors are flattened (dims..., dtype), several run into one paragraph and in typographic
quotes. Each warning is a task of its target."""

from __future__ import annotations

import json
import re

import pytest
from helpers import DATA, PASTES, parse
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest.source import Source
from hotdb.ingest.tasks.ansor_fallback import AnsorFallback
from hotdb.ingest.tasks.autotvm_tasks import AutotvmTasks
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


# ---------------------------------------------------------------------------------------
# Warnings of our own making (tests/data/ansor-fallback/make_fixtures.py, written to made/): the
# bundled VGG-16 build's kernels in each era's warning, by the format strings of TVM's
# dispatchers, with made-up hashes. They run wherever the real texts are absent; what each
# must give is computed from the workloads the generator wrote.

MADE = DATA / "ansor-fallback" / "made"
TARGET = "llvm -keys=cpu -link-params=0 -mcpu=core-avx2"


def _generator():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fallback", DATA / "ansor-fallback" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def _x(dims) -> str:
    return "x".join(map(str, dims))


def _key_of(workload: tuple) -> str:
    """hotdb's workload key of an AutoTVM workload tuple, written out from its parts."""
    if workload[0].startswith("dense"):
        return f"dense float32 d={_x(workload[1][1])} w={_x(workload[2][1])}"
    _, data, weight, strides, padding, dilation, *_ = workload
    return (f"conv2d float32 d={_x(data[1])} w={_x(weight[1])} s={_x(strides)} p={','.join(map(str, padding))} "
            f"dl={_x(dilation)} g=1")


def _lists(value):
    return [_lists(v) for v in value] if isinstance(value, (tuple, list)) else value


def test_made_warnings_are_what_the_generator_writes(tmp_path):
    GEN.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in MADE.iterdir())
    for path in tmp_path.iterdir():
        assert path.read_text(encoding="utf-8") == (MADE / path.name).read_text(encoding="utf-8"), path.name


def test_made_ansor_warnings_with_function_names_and_flattened_keys():
    fmt, parsed = parse(MADE / "vgg16_ansor_tvm08.log")
    conv, dense = GEN.CONV1_2, GEN.FC7
    assert fmt == "ansor-fallback"
    assert [(t.task_name, json.loads(t.task_args), t.variant, t.op_family) for t in parsed.tasks] == [
        (conv[0], conv, "flattened", "conv2d"), (dense[0], dense, "flattened", "dense")]
    # the DAG's placeholders cut the flattened dims: data, weight, bias, then the output
    assert parsed.tasks[0].workload_key == f"conv2d float32 d={_x(conv[1:5])} w={_x(conv[5:9])} s=1x1 p=1,1,1,1 dl=1x1 g=1"
    assert parsed.tasks[1].workload_key == f"dense float32 d={_x(dense[1:3])} w={_x(dense[3:5])}"
    assert [t.args_flat for t in parsed.tasks] == [",".join(map(str, k[1:])) for k in (conv, dense)]
    assert {canonical(t.target) for t in parsed.tasks} == {canonical(TARGET)}
    lines = Source.read(MADE / "vgg16_ansor_tvm08.log").lines
    rules = [i for i, line in enumerate(lines) if line == GEN.RULE]
    assert AnsorFallback().blocks(lines) == [(rules[0], rules[1]), (rules[1], len(lines) - 1)]  # rule to DAG end
    assert [t.line_no for t in parsed.tasks] == [rules[0] + 3, rules[1] + 3]  # the warning's own line


def test_made_ansor_warning_of_tvm_0_7_with_a_hash_only_key_gets_a_dense_workload():
    _, parsed = parse(MADE / "vgg16_ansor_tvm07_hash_only.log")
    (task,) = parsed.tasks
    assert (task.task_name, json.loads(task.task_args), task.variant) == (GEN.FC8[0], GEN.FC8, "hash only")
    # placeholders [1, 4096] and [1000, 4096]: data, weight, and the output 1x1000
    assert (task.workload_key, task.args_flat) == ("dense float32 d=1x4096 w=1000x4096", "1,4096,1000,4096,1,1000")


def test_made_ansor_warnings_run_together_in_typographic_quotes_give_the_same_keys():
    _, parsed = parse(MADE / "vgg16_ansor_run_together.txt")
    _, plain = parse(MADE / "vgg16_ansor_tvm08.log")
    assert [(t.task_name, t.task_args, t.target) for t in parsed.tasks] == \
           [(t.task_name, t.task_args, t.target) for t in plain.tasks]
    assert {t.line_no for t in parsed.tasks} == {3}
    # the DAG under the paragraph is the last warning's; the first has none to read
    assert [t.workload_key for t in parsed.tasks] == [None, plain.tasks[1].workload_key]


def test_made_autotvm_warnings_of_tvm_0_7_are_the_example_workloads():
    fmt, parsed = parse(MADE / "vgg16_autotvm_tvm07.log")
    workloads = GEN.workloads()
    assert fmt == "autotvm-tasks" and len(parsed.tasks) == len(workloads) == 12
    assert [(t.task_name, json.loads(t.task_args), t.workload_key) for t in parsed.tasks] == \
           [(w[0], _lists(w[1:]), _key_of(w)) for w in workloads]
    assert [t.line_no for t in parsed.tasks] == list(range(2, 14))
    assert {canonical(t.target) for t in parsed.tasks} == {canonical(TARGET)}


def test_made_autotvm_warnings_of_tvm_0_6_run_together_in_typographic_quotes():
    text = (MADE / "vgg16_autotvm_tvm06_run_together.txt").read_text(encoding="utf-8")
    assert "(\u2018conv2d\u2019, (1, 3, 224, 224, \u2018float32\u2019)" in text
    fmt, parsed = parse(MADE / "vgg16_autotvm_tvm06_run_together.txt")
    convs = [w for w in GEN.workloads() if w[0].startswith("conv2d")]
    assert fmt == "autotvm-tasks" and {t.line_no for t in parsed.tasks} == {3}
    assert [(t.task_name, t.workload_key) for t in parsed.tasks] == [("conv2d", _key_of(w)) for w in convs]
    assert json.loads(parsed.tasks[0].task_args)[:2] == [["TENSOR", [1, 3, 224, 224], "float32"],
                                                         ["TENSOR", [64, 3, 3, 3], "float32"]]


def test_made_autotvm_warnings_of_tvm_0_5_have_no_dilation():
    _, parsed = parse(MADE / "vgg16_autotvm_tvm05.log")
    convs = [w for w in GEN.workloads() if w[0].startswith("conv2d")][:2]
    assert [t.workload_key for t in parsed.tasks] == [_key_of(w) for w in convs]
    assert AutotvmTasks().blocks(Source.read(MADE / "vgg16_autotvm_tvm05.log").lines) == [(0, 2)]


@pytest.mark.parametrize("separator", [" ", "", "\n\n", "\n"])
@pytest.mark.parametrize("curly", [False, True])
def test_how_made_warnings_are_joined_and_quoted_changes_no_task(tmp_path, separator, curly):
    lines = (MADE / "vgg16_autotvm_tvm07.log").read_text().splitlines()[1:-1]
    text = separator.join(lines)
    path = tmp_path / "joined.txt"
    path.write_text((GEN.curly(text) if curly else text) + "\n", encoding="utf-8")
    _, expected = parse(MADE / "vgg16_autotvm_tvm07.log")
    _, got = parse(path)
    assert [(t.task_name, t.task_args, t.target, t.workload_key) for t in got.tasks] == \
           [(t.task_name, t.task_args, t.target, t.workload_key) for t in expected.tasks]


def test_a_made_paste_of_both_tuners_warnings_is_cut_into_both(cli, tmp_path):
    pasted = tmp_path / "both.txt"
    pasted.write_text((MADE / "vgg16_ansor_tvm08.log").read_text() + "\nand with AutoTVM:\n\n"
                      + (MADE / "vgg16_autotvm_tvm05.log").read_text())
    result = cli("ingest", pasted, "--model", "vgg16")
    assert result.code == 0, result.err
    assert "(lines 2-17) as ansor-fallback (tasks): 2 rows" in result.err
    assert "(lines 22-23) as autotvm-tasks (tasks): 2 rows" in result.err
    tasks = _stored_tasks(cli)
    assert [(t["tuner"], t["task_name"]) for t in tasks] == [("auto_scheduler", GEN.CONV1_2[0]), ("auto_scheduler", GEN.FC7[0]),
                                                             ("autotvm", "conv2d"), ("autotvm", "conv2d")]
