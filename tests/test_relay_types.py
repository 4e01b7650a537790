"""Relay as people print it: untyped IR gets its types inferred (hotdb/workload/type_relations.py),
and typed, untyped and annotated-parameter forms of one network give the same workloads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from conftest import DATA
from hotdb.ingest import get
from hotdb.ingest.base import Source
from hotdb.workload import conv_workload, dense_workload
from hotdb.workload.layouts import pack, unpack
from hotdb.workload.type_relations import infer


def parse_text(tmp_path, text: str):
    path = tmp_path / "net.relay.txt"
    path.write_text(text)
    return get("relay").parse(Source.read(path))


layers = st.lists(st.tuples(st.sampled_from([8, 16, 24, 32]), st.sampled_from([1, 3, 5]), st.sampled_from([1, 2]),
                            st.booleans()), min_size=1, max_size=4)


def _network(size: int, cin: int, convs, nhwc: bool, typed: bool) -> tuple[str, list[str]]:
    """A conv chain printed as Relay (NCHW/OIHW or NHWC/HWIO; typed or as before type
    inference), and the workload keys its convolutions compute."""
    data_shape = (1, size, size, cin) if nhwc else (1, cin, size, size)
    params = [f"%data: Tensor[({', '.join(map(str, data_shape))}), float32]"]
    body, keys, last, c, h = [], [], "%data", cin, size
    for i, (cout, k, s, bound) in enumerate(convs):
        pad = k // 2
        workload = conv_workload((1, c, h, h), (cout, c, k, k), (s, s), (pad, pad), (1, 1), 1, "float32")
        keys.append(workload.key)
        weight_shape = (k, k, c, cout) if nhwc else (cout, c, k, k)
        weight_ty = f"Tensor[({', '.join(map(str, weight_shape))}), float32]"
        if bound:
            weight = f"meta[relay.Constant][{i}]" + (f" /* ty={weight_ty} */" if typed else "")
        else:
            weight = f"%w{i}"
            params.append(f"%w{i}: {weight_ty}" if typed else f"%w{i}")
        out = workload.out
        out_shape = (1, out[2], out[3], out[1]) if nhwc else out
        layout = ', data_layout="NHWC", kernel_layout="HWIO"' if nhwc else ""
        ty = f" /* ty=Tensor[({', '.join(map(str, out_shape))}), float32] */" if typed else ""
        body.append(f"  %{2 * i} = nn.conv2d({last}, {weight}, strides=[{s}, {s}], padding=[{pad}, {pad}], "
                    f"channels={cout}, kernel_size=[{k}, {k}]{layout}){ty};")
        body.append(f"  %{2 * i + 1} = nn.relu(%{2 * i}){ty};")
        last, c, h = f"%{2 * i + 1}", cout, out[2]
    text = f"fn ({', '.join(params)}) {{\n" + "\n".join(body) + f"\n  {last}\n}}\n"
    return text, keys


@settings(max_examples=40, deadline=None)
@given(size=st.sampled_from([8, 14, 28]), cin=st.sampled_from([3, 16]), convs=layers, nhwc=st.booleans())
def test_untyped_relay_gives_the_workloads_of_typed_relay(tmp_path_factory, size, cin, convs, nhwc):
    tmp = tmp_path_factory.mktemp("relay")
    typed_text, keys = _network(size, cin, convs, nhwc, typed=True)
    untyped_text, _ = _network(size, cin, convs, nhwc, typed=False)
    for text in (typed_text, untyped_text):
        calls = parse_text(tmp, text).ir_calls
        assert [c.workload_key for c in calls if c.op_name == "nn.conv2d"] == keys


@given(n=st.integers(1, 4), c=st.sampled_from([8, 16, 32]), h=st.integers(1, 30), block=st.sampled_from([4, 8]))
def test_pack_is_the_inverse_of_unpack(n, c, h, block):
    packed = pack((n, c, h, h), f"NCHW{block}c")
    assert unpack(packed, f"NCHW{block}c") == (n, c, h, h)
    assert pack(unpack((n, h, h, c), "NHWC", "NCHW"), "NHWC", "NCHW") == (n, h, h, c)


def test_type_relations_of_common_ops():
    t = lambda *shape: [(list(shape), "float32")]  # noqa: E731
    assert infer("nn.batch_norm", {}, [t(1, 8, 4, 4)] + [None] * 4)[0] == [([1, 8, 4, 4], "float32"), ([8], "float32"),
                                                                         ([8], "float32")]
    assert infer("nn.dense", {"units": 10}, [t(3, 64), None])[0] == [([3, 10], "float32")]
    assert infer("nn.dense", {"units": 10}, [t(3, 64), None])[1][1] == [([10, 64], "float32")]  # the weight, completed
    assert infer("reshape", {"newshape": [-1, 32]}, [t(2, 4, 32)])[0] == [([8, 32], "float32")]
    assert infer("transpose", {"axes": [0, 2, 1]}, [t(2, 3, 4)])[0] == [([2, 4, 3], "float32")]
    assert infer("concatenate", {"axis": 1}, [[([1, 2, 5], "float32"), ([1, 3, 5], "float32")]])[0] == [([1, 5, 5], "float32")]
    assert infer("split", {"indices_or_sections": [768, 1536], "axis": 2}, [t(50, 32, 2304)])[0] == \
        [([50, 32, 768], "float32")] * 3
    assert infer("nn.max_pool2d", {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1]}, [t(1, 64, 112, 112)])[0] == \
        [([1, 64, 56, 56], "float32")]
    assert infer("nn.global_avg_pool2d", {"layout": "NHWC"}, [t(1, 7, 7, 512)])[0] == [([1, 1, 1, 512], "float32")]
    assert infer("mean", {"axis": [-1], "keepdims": True}, [t(8, 768)])[0] == [([8, 1], "float32")]
    assert infer("layout_transform", {"src_layout": "NCHW", "dst_layout": "NCHW8c"}, [t(1, 64, 7, 7)])[0] == \
        [([1, 8, 7, 7, 8], "float32")]
    assert infer("nn.batch_matmul", {"transpose_b": True}, [t(12, 32, 64), t(12, 32, 64)])[0] == [([12, 32, 32], "float32")]
    assert infer("add", {}, [t(1, 8, 4, 4), None])[0] == [([1, 8, 4, 4], "float32")]  # an untyped bias broadcasts
    assert infer("nn.unknown_op", {}, [t(1)])[0] is None


def test_dynamic_dimensions_make_a_dynamic_workload_unknown_ones_none(tmp_path):
    dynamic = parse_text(tmp_path, "def @main(%x: Tensor[(?, 1024), float32], %w: Tensor[(91, 1024), float32]) {\n"
                                   "  nn.dense(%x, %w, units=91) /* ty=Tensor[(?, 91), float32] */\n}\n")
    assert dynamic.ir_calls[0].workload_key == "dense float32 d=?x1024 w=91x1024"
    assert dynamic.workloads["dense float32 d=?x1024 w=91x1024"].flops is None
    unknown = parse_text(tmp_path, "fn (%x, %w) {\n  %0 = reshape(%x, newshape=[-1, 64]);\n  nn.dense(%0, %w, units=8)\n}\n")
    assert unknown.ir_calls[1].workload_key is None
    assert any("1 of 1 convolution/dense/batch_matmul calls have no workload" in w for w in unknown.warnings)
    assert dense_workload((4, 64), (8, 64)).key == "dense float32 d=4x64 w=8x64"


def test_printed_forms_people_paste(tmp_path):
    forms = {
        # annotated parameters (0.10-0.13 astext) and closures closed with their fn type
        "annotated": 'def @main(%x: Tensor[(1, 8, 6, 6), float32] /* ty=Tensor[(1, 8, 6, 6), float32] */) {\n'
                     '  %0 = fn (%p0: Tensor[(1, 8, 6, 6), float32] /* ty=Tensor[(1, 8, 6, 6), float32] */, Primitive=1) {\n'
                     '    nn.relu(%p0) /* ty=Tensor[(1, 8, 6, 6), float32] */\n'
                     '  } /* ty=fn (Tensor[(1, 8, 6, 6), float32]) -> Tensor[(1, 8, 6, 6), float32] */;\n'
                     '  %0(%x) /* ty=Tensor[(1, 8, 6, 6), float32] */\n}\n',
        # a name with a colon, exponent floats, a tuple return type over several lines
        "tf": 'def @main(%input_1:0: Tensor[(1, 4), float32]) -> (Tensor[(1, 4), float32],\n'
              '                                              Tensor[(1, 4), float32]) {\n'
              '  %0 = clip(%input_1:0, a_min=-3.40282e+38f, a_max=3.40282e+38f) /* ty=Tensor[(1, 4), float32] */;\n'
              '  (%0, %0)\n}\n',
        # prelude types, if/else, dynamic dims
        "control": 'type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n\n'
                   'def @main(%c: bool, %x: Tensor[(?, 4), float32]) {\n'
                   '  %1 = if (%c) {\n    nn.relu(%x) /* ty=Tensor[(?, 4), float32] */\n  } else {\n'
                   '    %0 = negative(%x) /* ty=Tensor[(?, 4), float32] */;\n    abs(%0) /* ty=Tensor[(?, 4), float32] */\n  };\n'
                   '  %1\n}\n',
    }
    ops = {name: [c.op_name for c in parse_text(tmp_path, text).ir_calls] for name, text in forms.items()}
    assert ops == {"annotated": ["nn.relu", "%0"], "tf": ["clip"], "control": ["nn.relu", "negative", "abs"]}


def test_a_second_module_in_one_paste_is_read_and_said(tmp_path):
    text = (DATA / "relay/untyped_small.relay.txt").read_text()
    parsed = parse_text(tmp_path, "Relay module function:\n v0.0.4\n" + text + "# ======\n" + text.replace("channels=10", "channels=10"))
    assert len(parsed.ir_calls) == len(parse_text(tmp_path, text).ir_calls)
    assert any("2 modules are printed one after the other; the last one (line 16) is read" in w for w in parsed.warnings)


def test_untyped_fixture_gets_every_anchor_a_workload():
    parsed = get("relay").parse(Source.read(DATA / "relay/untyped_small.relay.txt"))
    keys = [c.workload_key for c in parsed.ir_calls if c.op_name in ("nn.conv2d", "nn.dense")]
    assert keys == ["conv2d float32 d=1x3x32x32 w=16x3x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1",
                    "depthwise_conv2d float32 d=1x16x16x16 w=16x1x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=16",
                    "dense float32 d=1x1024 w=10x1024"]


@pytest.mark.parametrize("name", ["ansor-tasks/small_nhwc.txt"])
def test_printed_ansor_task_list(name):
    parsed = get("ansor-tasks").parse(Source.read(DATA / name))
    assert [t.workload_key for t in parsed.tasks] == [
        "conv2d float32 d=1x3x32x32 w=16x3x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1", "dense float32 d=1x1024 w=10x1024"]
    assert parsed.tasks[0].args_flat == "1,32,32,3,3,3,3,16,1,16,16,16"


def test_many_warnings_of_one_kind_are_summarised(cli, tmp_path):
    lines = (DATA / "relay/untyped_small.relay.txt").read_text().splitlines()
    glued = [line + " <- see the log at /tmp/x.txt:100:" if line.strip().startswith("%") else line for line in lines]
    path = tmp_path / "glued.relay.txt"
    path.write_text("\n".join(glued) + "\n")
    result = cli("ingest", path, "--model", "m")
    warnings = [line for line in result.err.splitlines() if "text after the statement" in line or "more like this" in line]
    assert len(warnings) == 4 and warnings[-1].endswith("6 more like this (lines 5-10)"), result.err
    assert ":100:" in result.err and "\N{HUNDRED POINTS SYMBOL}" not in result.err  # plain text, no emoji
