"""Relay text in every printed form, and the types inferred for untyped IR."""

from __future__ import annotations

import json
import re

import pytest
from helpers import DATA, parse, sample
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest import get
from hotdb.ingest.source import Source
from hotdb.workload import conv_workload, dense_workload


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


def test_fused_relay_links_closure_calls_to_their_ops():
    _, parsed = parse(DATA / "relay/fused_small.relay.txt")
    convs = [c for c in parsed.ir_calls if c.op_name == "nn.conv2d"]
    assert [c.function_name for c in convs] == ["main/%2", "main/%6"]
    assert convs[1].workload_key == "conv2d float32 d=1x16x32x32 w=16x16x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    closure_calls = [c for c in parsed.ir_calls if c.primfunc]
    assert [c.primfunc for c in closure_calls] == ["main/%2", "main/%6"]
    assert closure_calls[0].arg_kinds == ["var", "constant", "constant"]
    assert closure_calls[0].result_shapes == [[1, 16, 32, 32]]


def test_byoc_partitions_are_external_and_never_candidates(cli, tmp_path):
    path = sample("relay_text_resnet50_byoc_partitioned_first125.txt")
    _, parsed = parse(path)
    inside = [c for c in parsed.ir_calls if c.function_name.startswith("tvmgen_default_cutlass_main")]
    assert inside and all(c.compiler == "cutlass" for c in inside)
    calls = [c for c in parsed.ir_calls if c.op_name.startswith("@tvmgen_default_cutlass")]
    assert calls[0].compiler == "cutlass"  # the partition is defined after main calls it
    assert all(c.compiler is None for c in parsed.ir_calls if c.op_name == "nn.max_pool2d")
    assert cli("ingest", path, "--model", "byoc").code == 0
    convs = cli("sql", "SELECT count(*) AS n FROM ir_calls WHERE op_family = 'conv2d' AND compiler IS NULL", "-f", "json").json()
    assert convs[0]["n"] == 0


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


def test_type_arguments_printed_after_the_operands_are_their_types(tmp_path):
    # Relay's printer writes a call's type arguments (its operands' types) after the
    # operands once ToMixedPrecision or a legalization set them, as a user pasted statements
    # %82-%86 of a ResNet-18 without their function: %81 is declared nowhere, so the conv's
    # data shape is known from its type argument only
    fragment = ("%82 = nn.conv2d(%81, meta[relay.Constant][95] /* ty=Tensor[(512, 512, 3, 3), float16] */, "
                "Tensor[(1, 512, 7, 7), float16], Tensor[(512, 512, 3, 3), float16], padding=[1, 1, 1, 1], "
                'channels=512, kernel_size=[3, 3], out_dtype="float16") /* ty=Tensor[(1, 512, 7, 7), float16] */;\n'
                "%85 = add(%77, %82, Tensor[(1, 512, 7, 7), float16], Tensor[(1, 512, 7, 7), float16]) "
                "/* ty=Tensor[(1, 512, 7, 7), float16] */;\n"
                "%86 = multiply(%85, 9 /* ty=float16 */, Tensor[(1, 512, 7, 7), float16], float16) "
                "/* ty=Tensor[(1, 512, 7, 7), float16] */;\n"
                "%87 = concatenate((%85, %86), (Tensor[(1, 512, 7, 7), float16], Tensor[(1, 512, 7, 7), float16]), "
                "axis=1) /* ty=Tensor[(1, 1024, 7, 7), float16] */;\n")
    calls = parse_text(tmp_path, fragment).ir_calls
    assert [(c.op_name, len(c.arg_shapes)) for c in calls] == [
        ("nn.conv2d", 2), ("add", 2), ("multiply", 2), ("concatenate", 1)]
    assert calls[0].workload_key == "conv2d float16 d=1x512x7x7 w=512x512x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    assert calls[1].arg_shapes[0] == [1, 512, 7, 7]  # %77, undeclared, typed by its type argument


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


def test_dynamic_dimensions_make_a_dynamic_workload_unknown_ones_none(tmp_path):
    dynamic = parse_text(tmp_path, "def @main(%x: Tensor[(?, 1024), float32], %w: Tensor[(91, 1024), float32]) {\n"
                                   "  nn.dense(%x, %w, units=91) /* ty=Tensor[(?, 91), float32] */\n}\n")
    assert dynamic.ir_calls[0].workload_key == "dense float32 d=?x1024 w=91x1024"
    assert dynamic.workloads["dense float32 d=?x1024 w=91x1024"].flops is None
    unknown = parse_text(tmp_path, "fn (%x, %w) {\n  %0 = reshape(%x, newshape=[-1, 64]);\n  nn.dense(%0, %w, units=8)\n}\n")
    assert unknown.ir_calls[1].workload_key is None
    assert any("1 of 1 convolution/dense/batch_matmul calls have no workload" in w for w in unknown.warnings)
    assert dense_workload((4, 64), (8, 64)).key == "dense float32 d=4x64 w=8x64"


def test_many_warnings_of_one_kind_are_summarised(cli, tmp_path):
    lines = (DATA / "relay/untyped_small.relay.txt").read_text().splitlines()
    glued = [line + " <- see the log at /tmp/x.txt:100:" if line.strip().startswith("%") else line for line in lines]
    path = tmp_path / "glued.relay.txt"
    path.write_text("\n".join(glued) + "\n")
    result = cli("ingest", path, "--model", "m")
    warnings = [line for line in result.err.splitlines() if "text after the statement" in line or "more like this" in line]
    assert len(warnings) == 4 and warnings[-1].endswith("6 more like this (lines 5-10)"), result.err
    assert ":100:" in result.err and "\N{HUNDRED POINTS SYMBOL}" not in result.err  # plain text, no emoji


def test_a_scope_keeps_every_variable_it_binds():
    """relay_scope.Scope, which keeps numbered variables as 4-byte type indexes, finds
    what a dict would: numbers from any start, rebound, far apart, zero-padded, named."""
    from hotdb.ingest.ir.scope import Scope

    scope, plain = Scope(), {}
    t1, t2 = [([1, 8], "float32")], [([1, 8], "float32"), (None, "int64")]
    bindings = [("%500", t1), ("%501", t2), ("%500", t2), ("%499", t1), ("%0500", t1), ("%x", None),
                ("%600000", t2), ("%502", ("fn", t1)), ("%1000", None), ("%", t1), ("%x.1", t2)]
    for name, ty in bindings:
        scope[name] = plain[name] = ty
    for name in [n for n, _ in bindings] + ["%503", "%498", "%1", "%y", "%999999"]:
        assert scope.find(name) == ((plain[name], True) if name in plain else (None, False)), name


def test_calls_in_if_and_else_branches_know_the_types_bound_outside(tmp_path):
    ty = "/* ty=Tensor[(1, 8), float32] */"
    path = tmp_path / "if.relay.txt"
    path.write_text("def @main(%x: Tensor[(1, 8), float32], %c: bool) {\n"
                    f"  %0 = nn.relu(%x) {ty};\n"
                    "  %3 = if (%c) {\n"
                    f"    %1 = nn.relu(%0) {ty};\n    %1\n"
                    "  } else {\n"
                    f"    %2 = sigmoid(%0) {ty};\n    %2\n"
                    "  };\n"
                    f"  add(%3, %0) {ty}\n}}\n")
    _, parsed = parse(path, "relay")
    assert [(c.op_name, c.arg_shapes) for c in parsed.ir_calls] == [
        ("nn.relu", [[1, 8]]), ("nn.relu", [[1, 8]]), ("sigmoid", [[1, 8]]), ("add", [[1, 8], [1, 8]])]
