"""IR as web pages and threads render it, read from real texts (tests/data/ir-pastes/,
SOURCES.md says where each comes from): Relay statements pasted without their function,
a function glued to a sentence with its statements joined on one line, two printed
modules of which the last is cut off, and 2022's Relax TVMScript."""

from __future__ import annotations

import json
import re

import pytest
from helpers import DATA, PASTES, parse
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.ingest import pipeline
from hotdb.ingest.ir.relay import RelayText
from hotdb.ingest.source import Source
from hotdb.workload import parse_kernel_name

PASTES_IR = PASTES / "ir-pastes"  # real texts: ../shared/real/pastes/ir-pastes/ (SOURCES.md here)
REAL_PASTE_FOLDERS = ("PASTES_IR",)


def _read(name: str):
    """A text read as `hotdb ingest` reads it: renderings undone, cut into its artifacts."""
    items = pipeline.read([PASTES_IR / name])
    assert len(items) == 1, [item.format for item in items]
    return items[0].format, items[0].parsed


def _conv_keys(parsed) -> list:
    return [c.workload_key for c in parsed.ir_calls if c.op_name == "nn.conv2d"]


def test_typed_statements_without_their_function_give_workloads():
    fmt, parsed = parse(PASTES_IR / "tvm-5273-quick-start.txt")
    assert fmt == "relay"
    assert [c.op_name for c in parsed.ir_calls] == [
        "nn.relu", "nn.max_pool2d", "nn.batch_norm", "nn.relu", "nn.conv2d", "nn.batch_norm", "nn.relu",
        "nn.conv2d", "nn.conv2d", "add"]
    assert {c.function_name for c in parsed.ir_calls} == {"main"}
    # data types from the annotations of the statements before; weights from the attributes
    assert _conv_keys(parsed) == ["conv2d float32 d=1x64x56x56 w=64x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"] * 2 + [
        "conv2d float32 d=1x64x56x56 w=64x64x1x1 s=1x1 p=0,0,0,0 dl=1x1 g=1"]
    assert parsed.ir_calls[1].op_family == "max_pool2d" and parsed.ir_calls[1].result_shapes == [[1, 64, 56, 56]]
    assert any(":1: statements without their function" in w for w in parsed.warnings)
    # the copy ends inside `%17 = nn.batch_norm(...`: what came before is read, that one is said
    assert any(":13: the last statement is cut off where the text ends, skipped: '%17 = nn.batch_norm(" in w
               for w in parsed.warnings)


def test_untyped_statements_after_prose_are_read_with_their_attributes():
    fmt, parsed = parse(PASTES_IR / "tvm-3688-print-func.txt")
    assert fmt == "relay"
    ops = [c.op_name for c in parsed.ir_calls]
    assert ops.count("nn.conv2d") == 5 and ops.count("nn.batch_norm") == 5 and ops[:4] == [
        "nn.conv2d", "nn.batch_norm", "nn.relu", "nn.max_pool2d"]
    first = parsed.ir_calls[0]
    assert first.line_no == 3 and json.loads(first.attrs) == {
        "strides": [2, 2], "padding": [3, 3], "dilation": [1, 1, 1], "kernel_size": [7, 7]}
    assert _conv_keys(parsed) == [None] * 5  # no shape is printed: no workload is made up
    assert any("2 lines are not Relay and were skipped (lines 1-2)" in w for w in parsed.warnings)
    assert any("5 of 5 convolution/dense/batch_matmul calls have no workload" in w for w in parsed.warnings)


def test_nhwc_statements_in_a_fence_with_dynamic_dimensions():
    fmt, parsed = parse(PASTES_IR / "tvm-8683-yolox-statements.txt")
    assert fmt == "relay"
    convs = [c for c in parsed.ir_calls if c.op_name == "nn.conv2d"]
    assert [c.arg_shapes[1] for c in convs] == [[1, 1, 32, 32], [3, 3, 32, 1], [1, 1, 32, 32]]
    assert [json.loads(c.attrs)["kernel_layout"] for c in convs] == ["HWIO", "HWOI", "HWIO"]
    # the first convolution's input comes from before the paste; the others' channels are known
    assert _conv_keys(parsed) == [None, "depthwise_conv2d float32 d=?x32x?x? w=32x1x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=32",
                                  "conv2d float32 d=?x32x?x? w=32x32x1x1 s=1x1 p=0,0,0,0 dl=1x1 g=1"]
    assert [c.op_name for c in parsed.ir_calls] == ["nn.conv2d", "add", "sigmoid", "multiply"] * 2 + ["nn.conv2d", "add", "sigmoid"]
    assert any("1 line is not Relay and was skipped (line 1)" in w for w in parsed.warnings)  # the fence


def test_blocks_find_statement_runs_in_pasted_text():
    finder = RelayText()
    for name, expected in [("tvm-5273-quick-start.txt", [(0, 13)]), ("tvm-3688-print-func.txt", [(2, 23)]),
                           ("tvm-8683-yolox-statements.txt", [(1, 12)])]:
        assert finder.blocks((PASTES_IR / name).read_text().splitlines()) == expected, name
    # beside a whole module, statements quoted from it are no artifact of their own
    module = (PASTES_IR / "discuss-8314-quantize-partition.txt").read_text().splitlines()[:18]  # its first printout
    quoted = module + (PASTES_IR / "tvm-5273-quick-start.txt").read_text().splitlines()
    assert finder.blocks(quoted) == finder.blocks(module) == [(8, 17)]


def test_the_complete_module_is_read_when_the_last_one_is_cut_off(cli):
    fmt, parsed = parse(PASTES_IR / "discuss-8314-quantize-partition.txt")
    assert fmt == "relay"
    assert [c.op_name for c in parsed.ir_calls] == [
        "nn.conv2d", "nn.relu", "nn.max_pool2d", "nn.conv2d", "nn.relu", "nn.adaptive_avg_pool2d", "nn.adaptive_avg_pool2d"]
    assert [c.line_no for c in parsed.ir_calls] == list(range(10, 17))  # the first module, not the cut one
    assert [c.op_family for c in parsed.ir_calls] == [
        "conv2d", "relu", "max_pool2d", "conv2d", "relu", "adaptive_avg_pool2d", "adaptive_avg_pool2d"]
    assert _conv_keys(parsed) == ["conv2d float32 d=1x3x224x224 w=64x3x7x7 s=2x2 p=3,3,3,3 dl=1x1 g=1",
                                  "conv2d float32 d=1x64x56x56 w=128x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"]
    assert any("2 modules are printed one after the other; the last complete one (line 9) is read, "
               "the others (line 21 (cut off)) are skipped" in w for w in parsed.warnings)
    result = cli("ingest", PASTES_IR / "discuss-8314-quantize-partition.txt", "--model", "m")
    assert result.code == 0, result.err
    rows = cli("sql", "SELECT op_name, workload_key FROM ir_calls ORDER BY call_index", "-f", "json").json()
    assert len(rows) == 7 and sum(1 for r in rows if r["workload_key"]) == 2


def test_a_function_glued_to_prose_with_its_statements_on_one_line():
    fmt, parsed = _read("geekdaxue-relay-pass-infra.txt")
    assert fmt == "relay"
    assert [(c.line_no, c.op_name) for c in parsed.ir_calls] == [(5, "nn.conv2d")] + [(5, "add")] * 4
    assert _conv_keys(parsed) == ["conv2d float32 d=1x64x56x56 w=64x64x3x3 s=1x1 p=0,0,0,0 dl=1x1 g=1"]
    assert parsed.ir_calls[-1].result_shapes == [[1, 64, 54, 54]]
    warnings = "\n".join(parsed.warnings)
    assert "type comments whose asterisks a page ate restored" in warnings  # the pre-pass, before the reader
    assert ":5: text before the IR skipped: 't the constants are folded.print(mod)输出:'" in warnings
    # the second printout is glued to the metadata note and cut off: the first is read
    assert ":6: text before the IR skipped" in warnings and ":6: the last statement is cut off" in warnings


@settings(max_examples=25, deadline=None)
@given(st.lists(st.booleans(), min_size=11, max_size=11), st.sampled_from(["", "it shows: ", "IR is like this："]))
def test_statements_joined_on_one_line_read_as_printed(joins, prefix):
    """A page that joins statements (or glues the first to a sentence) changes nothing read."""
    lines = (PASTES_IR / "tvm-5273-quick-start.txt").read_text().splitlines()[:12]  # the whole statements
    text = prefix + lines[0].strip()
    for join, line in zip(joins, lines[1:]):
        text += line.strip() if join else "\n" + line
    ir = RelayText()
    printed = ir.parse(Source.from_text("printed.txt", "\n".join(lines) + "\n"))
    joined = ir.parse(Source.from_text("joined.txt", text + "\n"))
    assert [(c.op_name, c.arg_shapes, c.workload_key) for c in joined.ir_calls] == \
        [(c.op_name, c.arg_shapes, c.workload_key) for c in printed.ir_calls]


def test_relax_of_2022_positional_output_shape_and_subscript_types():
    fmt, parsed = parse(PASTES_IR / "mlc-en-end-to-end-mymodule.md")
    assert fmt == "relax"
    calls = parsed.ir_calls
    assert [(c.primfunc, c.op_family) for c in calls] == [("linear0", "linear"), ("relu0", "relu"), ("linear1", "linear")]
    assert [c.arg_shapes for c in calls] == [[[1, 784], [128, 784], [128]], [[1, 128]], [[1, 128], [10, 128], [10]]]
    assert [c.result_shapes for c in calls] == [[[1, 128]], [[1, 128]], [[1, 10]]]
    assert {d for c in calls for d in c.result_dtypes + c.arg_dtypes} == {"float32"}
    assert calls[0].args_flat == "1,784,128,784,128,1,128"  # as a MetaSchedule task of linear0 lists them


def test_relax_function_of_2022_printed_twice_reads_the_last():
    fmt, parsed = parse(PASTES_IR / "relax-110-call-te.txt")
    assert fmt == "relax"
    assert [(c.line_no, c.primfunc) for c in parsed.ir_calls] == [(20, "add"), (21, "exp"), (22, "squeeze")]
    assert {c.function_name for c in parsed.ir_calls} == {"fused_add_exp_squeeze"}
    assert [c.result_shapes for c in parsed.ir_calls] == [[[10, 20]]] * 3
    assert parsed.ir_calls[0].arg_shapes == [[10, 20], None]  # (x1, 1): a constant has no tensor shape
    assert parsed.ir_calls[1].args_flat == "10,20,10,20"
    assert any("2 modules are printed one after the other; the last one (line 17) is read, the others (line 6)"
               in w for w in parsed.warnings)


def test_relax_rfc_symbolic_shapes_and_packed_calls():
    fmt, parsed = parse(PASTES_IR / "rfc-0089-relax-upstreaming.md")
    assert fmt == "relax"
    # packed functions (call_packed, call_dps_packed) are no IR calls; the PrimFunc call is
    [call] = parsed.ir_calls
    assert (call.line_no, call.primfunc, call.op_family) == (47, "tir_matmul", "matmul")
    # `(m, n)` and `(m, k)` are symbols: dimensions unknown, never a number made up
    assert call.arg_shapes == [[-1, -1], [-1, -1]] and call.result_shapes == [[-1, -1]]
    assert call.result_dtypes == ["float32"] and call.workload_key is None


@pytest.mark.parametrize("symbol, family", [
    # Relax legalizes ops into PrimFuncs named without `nn_`, numbered with digits glued on
    ("max_pool2d", "max_pool2d"), ("max_pool2d1", "max_pool2d"), ("adaptive_avg_pool2d1", "adaptive_avg_pool2d"),
    ("fused_conv2d1_add_relu", "conv2d"), ("layer_norm1", "layer_norm"), ("fused_layer_norm_cast1", "layer_norm"),
    # Relay symbols name them with `nn_` as before
    ("tvmgen_default_fused_nn_max_pool2d_3", "max_pool2d"), ("fused_nn_adaptive_avg_pool2d", "adaptive_avg_pool2d"),
    ("max3", "max"),  # the reduction op `max` stays itself
])
def test_relax_primfunc_names_give_the_op_families_people_name(symbol, family):
    assert parse_kernel_name(symbol).family == family


def test_every_saved_text_has_its_source_recorded():
    sources = (DATA / "ir-pastes" / "SOURCES.md").read_text()
    named = set(re.findall(r"^\| `([^`]+)` \|", sources, re.M))
    assert named == {p.name for p in PASTES_IR.iterdir() if p.name != "SOURCES.md"}


# ---------------------------------------------------------------------------------------
# Pastes of our own making (tests/data/ir-pastes/make_fixtures.py, written to made/): the
# bundled VGG-16 Relay text pasted as people paste IR, and its classifier as 2022 Relax.
# They run wherever the real texts are absent; what they must give is the clean example's
# calls (read from the whole module) or is computed from the shapes the generator wrote.

MADE = DATA / "ir-pastes" / "made"


def _generator():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_ir_pastes", DATA / "ir-pastes" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def _made(name: str):
    items = pipeline.read([MADE / name])
    assert len(items) == 1, [item.format for item in items]
    return items[0].format, items[0].parsed


def _clean_calls(vgg16) -> list:
    return parse(vgg16["relay"])[1].ir_calls


def _rows(calls) -> list[tuple]:
    return [(c.op_name, c.result_shapes, c.workload_key) for c in calls]


def test_made_pastes_are_what_the_generator_writes(tmp_path):
    GEN.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in MADE.iterdir())
    for path in tmp_path.iterdir():
        assert path.read_text() == (MADE / path.name).read_text(), path.name


def test_made_statements_without_their_function_give_the_modules_calls(vgg16):
    fmt, parsed = parse(MADE / "vgg16_statements_cut.txt")
    assert fmt == "relay"
    # %13 to %22 of the module: weights' shapes from `channels` and `kernel_size`, data from the statement before
    assert _rows(parsed.ir_calls) == _rows(_clean_calls(vgg16)[13:23])
    assert [c.line_no for c in parsed.ir_calls] == list(range(1, 11)) and {c.function_name for c in parsed.ir_calls} == {"main"}
    assert _conv_keys(parsed) == [
        f"conv2d float32 d=1x{c}x56x56 w=256x{c}x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1" for c in (128, 256, 256)]
    warnings = "\n".join(parsed.warnings)
    assert ":1: statements without their function" in warnings
    assert ":11: the last statement is cut off where the text ends, skipped: '%23 = nn.max_pool2d(" in warnings
    assert RelayText().blocks((MADE / "vgg16_statements_cut.txt").read_text().splitlines()) == [(0, 11)]


def test_made_block_glued_to_prose_on_one_line_gives_the_blocks_calls(vgg16):
    fmt, parsed = _made("vgg16_block_glued_to_prose.txt")
    assert fmt == "relay"
    assert _rows(parsed.ir_calls) == _rows(_clean_calls(vgg16)[:7])  # %0 to the pool, all on line 2
    assert {c.line_no for c in parsed.ir_calls} == {2}
    assert _conv_keys(parsed) == ["conv2d float32 d=1x3x224x224 w=64x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
                                  "conv2d float32 d=1x64x224x224 w=64x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"]
    assert any(":2: text before the IR skipped: 'print(mod) shows:" in w for w in parsed.warnings)


def test_made_two_printouts_read_the_complete_one(cli, vgg16):
    fmt, parsed = parse(MADE / "vgg16_two_printouts_last_cut.txt")
    lines = (MADE / "vgg16_two_printouts_last_cut.txt").read_text().splitlines()
    first, second = [i + 1 for i, line in enumerate(lines) if line.startswith("#[version")]
    assert fmt == "relay"
    assert _rows(parsed.ir_calls) == _rows(_clean_calls(vgg16)[:7])
    assert [c.line_no for c in parsed.ir_calls] == list(range(first + 2, first + 9))  # the first printout
    assert any(f"2 modules are printed one after the other; the last complete one (line {first + 1}) is read, "
               f"the others (line {second + 1} (cut off)) are skipped" in w for w in parsed.warnings)
    result = cli("ingest", MADE / "vgg16_two_printouts_last_cut.txt", "--model", "vgg16")
    assert result.code == 0, result.err
    rows = cli("sql", "SELECT op_name, workload_key FROM ir_calls ORDER BY call_index", "-f", "json").json()
    assert [(r["op_name"], r["workload_key"]) for r in rows] == [(c.op_name, c.workload_key) for c in parsed.ir_calls]


def test_made_relax_of_2022_gives_the_classifiers_calls():
    fmt, parsed = parse(MADE / "vgg16_classifier_relax_2022.md")
    assert fmt == "relax"
    expected = [(name, [list(s) for _, s in inputs], [list(out)]) for name, inputs, out in GEN.CLASSIFIER]
    assert [(c.primfunc, c.arg_shapes, c.result_shapes) for c in parsed.ir_calls] == expected
    assert [c.op_family for c in parsed.ir_calls] == ["dense", "dense", "dense", "softmax"]
    assert [c.workload_key for c in parsed.ir_calls] == [
        f"dense float32 d=1x{inputs[0][1][1]} w={inputs[1][1][0]}x{inputs[1][1][1]}" for _, inputs, _ in GEN.CLASSIFIER[:3]] + [None]
    assert {d for c in parsed.ir_calls for d in c.arg_dtypes + c.result_dtypes} == {"float32"}
    assert parsed.ir_calls[0].args_flat == "1,25088,4096,25088,4096,1,4096"  # arguments, then the output


@settings(max_examples=25, deadline=None)
@given(st.lists(st.booleans(), min_size=9, max_size=9), st.sampled_from(["", "it shows: ", "IR is like this："]))
def test_made_statements_joined_on_one_line_read_as_printed(joins, prefix):
    lines = (MADE / "vgg16_statements_cut.txt").read_text().splitlines()[:10]  # the whole statements
    text = prefix + lines[0].strip()
    for join, line in zip(joins, lines[1:]):
        text += line.strip() if join else "\n" + line
    ir = RelayText()
    printed = ir.parse(Source.from_text("printed.txt", "\n".join(lines) + "\n"))
    joined = ir.parse(Source.from_text("joined.txt", text + "\n"))
    assert [(c.op_name, c.arg_shapes, c.workload_key) for c in joined.ir_calls] == \
        [(c.op_name, c.arg_shapes, c.workload_key) for c in printed.ir_calls]
