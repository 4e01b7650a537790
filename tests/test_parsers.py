"""The three ingestors on our own artifacts and the public samples, and their errors."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from hotdb.errors import ParseError
from hotdb.ingest import REGISTRY, detect, get
from hotdb.ingest.base import Source
from conftest import DATA, sample


def parse(path, fmt=None):
    source = Source.read(path)
    ingestor = get(fmt) if fmt else detect(source)
    return ingestor.name, ingestor.parse(source)


# -- debug-table ---------------------------------------------------------------------

def test_debug_table_rows_match_the_file(vgg16):
    name, parsed = parse(vgg16["table"])
    assert name == "debug-table"
    lines = vgg16["table"].read_text().splitlines()
    body = [l.split() for l in lines[2:] if l and not l.startswith("Total_time")]
    assert len(parsed.nodes) == len(body)
    first = parsed.nodes[0]
    assert first.node_name == body[0][0] and first.func_name == body[0][1]
    assert first.time_us == float(body[0][2])
    total = float(lines[-1].split()[2])
    assert sum(n.time_us for n in parsed.nodes) == pytest.approx(total, rel=1e-6)
    assert parsed.warnings == []
    conv = next(n for n in parsed.nodes if n.out_shape == [1, 2, 224, 224, 32])
    assert conv.out_shape_logical == [1, 64, 224, 224] and conv.kernel_family == "conv2d"
    assert conv.num_inputs == 3 and conv.num_outputs == 1


def test_debug_table_measurements_become_samples():
    _, parsed = parse(DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt")
    assert parsed.run.variant == "with Measurements(us)"
    assert len(parsed.samples) == 3 * len(parsed.nodes)
    node = parsed.nodes[0]
    values = [s.time_us for s in parsed.samples if s.node_index == node.node_index]
    assert sum(values) / 3 == pytest.approx(node.time_us, abs=0.002)


def test_debug_table_legacy_start_end_sample():
    _, parsed = parse(sample("debug_executor_table_legacy_nnvm_docs_arch_debugger_rst.txt"))
    assert parsed.run.variant == "legacy Start/End"
    assert [n.node_name for n in parsed.nodes][:2] == ["1_NCHW1c", "_contrib_conv2d_nchwc0"]
    assert parsed.nodes[3].func_name == "fuse__contrib_conv2d_NCHWc_1" and parsed.nodes[3].time_us == 213108.6
    assert parsed.nodes[3].kernel_family == "conv2d"
    assert parsed.nodes[1].start_us < parsed.nodes[3].start_us
    assert any("no Total_time" in w for w in parsed.warnings)


def test_debug_table_trimmed_total_is_a_warning(tmp_path, vgg16):
    lines = vgg16["table"].read_text().splitlines()
    trimmed = tmp_path / "t.txt"
    trimmed.write_text("\n".join(lines[:8] + lines[-1:]) + "\n")
    _, parsed = parse(trimmed)
    assert len(parsed.nodes) == 6
    assert any("differs from the sum of rows" in w for w in parsed.warnings)


def test_debug_table_truncated_row_names_the_line():
    with pytest.raises(ParseError) as err:
        parse(DATA / "bad/truncated_row.debug_table.txt")
    assert err.value.line == 10
    assert "columns" in err.value.message


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    rows = []
    for i in range(n):
        func = draw(st.sampled_from(["fused_nn_conv2d_add", "fused_nn_dense", "fused_layout_transform"])) + f"_{i}"
        shape = draw(st.lists(st.integers(1, 512), min_size=1, max_size=5))
        time = draw(st.floats(0, 1e6, allow_nan=False).map(lambda t: round(t, 3)))
        rows.append((func, func, time, shape, draw(st.integers(1, 4))))
    return rows


@settings(max_examples=60, deadline=None)
@given(tables(), st.booleans(), st.sampled_from(["\n", "\r\n"]))
def test_debug_table_round_trip(tmp_path_factory, rows, measurements, newline):
    """Tables printed by TVM's rules (left-aligned, width + 2) parse back to the same rows."""
    header = ["Node Name", "Ops", "Time(us)", "Time(%)", "Shape", "Inputs", "Outputs"] + (["Measurements(us)"] if measurements else [])
    total = sum(r[2] for r in rows) or 1.0
    cells = [[r[0], r[1], str(r[2]), str(round(100 * r[2] / total, 3)), str(tuple(r[3])).replace(",)", ")") if len(r[3]) > 1 else f"({r[3][0]},)",
              str(r[4]), "1"] + ([str([r[2], r[2]])] if measurements else []) for r in rows]
    cells.append(["Total_time", "-", str(sum(r[2] for r in rows))] + ["-"] * (len(header) - 3))
    widths = [max(len(h), *(len(c[i]) for c in cells)) + 2 for i, h in enumerate(header)]
    text = newline.join("".join(c.ljust(w) for c, w in zip(row, widths)) for row in
                        [header, ["-" * len(h) for h in header]] + cells)
    path = tmp_path_factory.mktemp("t") / "table.txt"
    path.write_bytes(text.encode())
    _, parsed = parse(path)
    assert [(n.func_name, n.time_us, n.out_shape, n.num_inputs) for n in parsed.nodes] == \
           [(r[1], r[2], r[3], r[4]) for r in rows]


# -- relay ---------------------------------------------------------------------------

def test_relay_calls_match_the_file(vgg16):
    name, parsed = parse(vgg16["relay"])
    assert name == "relay"
    text = vgg16["relay"].read_text()
    assert len(parsed.ir_calls) == len(re.findall(r"^\s+(?:%\d+ = )?[a-z_][\w.]*\(", text, re.M))
    convs = [c for c in parsed.ir_calls if c.op_name == "nn.conv2d"]
    assert len(convs) == 13 and len({c.workload_key for c in convs}) == 9
    first = convs[0]
    assert first.arg_shapes == [[1, 3, 224, 224], [64, 3, 3, 3]] and first.arg_kinds == ["var", "var"]
    assert json.loads(first.attrs) == {"padding": [1, 1, 1, 1], "channels": 64, "kernel_size": [3, 3]}
    dropout = next(c for c in parsed.ir_calls if c.op_name == "nn.dropout")
    assert dropout.result_shapes == [[1, 4096], [1, 4096]]
    after = parsed.ir_calls[parsed.ir_calls.index(dropout) + 1]
    assert after.arg_shapes[0] == [1, 4096]  # through `%47 = %46.0`
    assert [c.call_index for c in parsed.ir_calls] == list(range(len(parsed.ir_calls)))


def test_relay_byoc_sample_constants_and_global_calls():
    _, parsed = parse(sample("relay_text_resnet50_byoc_partitioned_first125.txt"))
    call = next(c for c in parsed.ir_calls if c.op_name == "@tvmgen_default_cutlass_main_0")
    assert call.arg_kinds == ["var", "constant", "constant"]
    assert call.arg_shapes == [[8, 224, 224, 3], [64, 7, 7, 3], [64]]
    assert call.result_shapes == [[8, 112, 112, 64]] and call.result_dtypes == ["float16"]
    inner = next(c for c in parsed.ir_calls if c.op_name == "nn.conv2d" and c.function_name.startswith("tvmgen_default_cutlass_main_0"))
    assert inner.workload_key == "conv2d float16 d=8x3x224x224 w=64x3x7x7 s=2x2 p=3,3,3,3 dl=1x1 g=1"


def test_relay_06_sample_with_stray_lines():
    _, parsed = parse(sample("graph_json_and_relay_text_nchwc_0.6era.txt"), "relay")
    assert [c.op_name for c in parsed.ir_calls] == ["nn.conv2d", "nn.batch_norm", "nn.relu"]
    assert parsed.ir_calls[2].arg_shapes == [[1, 32, 112, 112]]
    assert parsed.warnings  # the graph JSON around it is skipped with warnings


def test_relay_glued_text_is_warned_and_skipped(tmp_path, vgg16):
    lines = vgg16["relay"].read_text().splitlines()
    lines[3] += " [12:00:01] src/relay/pass.cc:42: some log text"
    lines.insert(5, "WARNING: something printed in the middle")
    path = tmp_path / "glued.relay.txt"
    path.write_text("\n".join(lines) + "\n")
    _, parsed = parse(path)
    _, clean = parse(vgg16["relay"])
    assert len(parsed.ir_calls) == len(clean.ir_calls)
    assert any(":4: text after the statement skipped" in w for w in parsed.warnings)
    assert any("1 line is not Relay and was skipped (line 6)" in w for w in parsed.warnings)


def test_relay_broken_type_names_the_line():
    with pytest.raises(ParseError) as err:
        parse(DATA / "bad/broken_type.relay.txt")
    assert err.value.line == 5 and "type annotation" in err.value.message


# -- autotvm-tasks -------------------------------------------------------------------

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


# -- detection -----------------------------------------------------------------------

def test_every_format_is_detected(vgg16):
    assert [parse(vgg16[k])[0] for k in ("table", "relay", "tasks", "log")] == \
           ["debug-table", "relay", "autotvm-tasks", "autotvm-tasks"]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_parse_errors(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "f.txt"
    path.write_bytes(data)
    for ingestor in REGISTRY:
        try:
            source = Source.read(path)
            ingestor.sniff(source)
            ingestor.parse(source)
        except ParseError:
            pass
