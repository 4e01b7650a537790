"""Canonical workloads: layouts, op families, keys, type relations, with property tests."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotdb.workload import (
    LayoutError,
    WorkloadError,
    conv_workload,
    from_autotvm_task,
    from_kernel_args,
    from_relay_call,
    logical_output_shape,
    parse_kernel_name,
    unpack,
)
from hotdb.workload.layouts import pack
from hotdb.workload.type_relations import infer

dims = st.integers(min_value=1, max_value=64)


blocks = st.sampled_from([1, 2, 3, 4, 8, 16, 32, 64])


@given(n=dims, c_outer=dims, h=dims, w=dims, c=blocks)
def test_nchwc_unpacks_to_nchw(n, c_outer, h, w, c):
    assert unpack((n, c_outer, h, w, c), f"NCHW{c}c") == (n, c_outer * c, h, w)
    assert logical_output_shape("conv2d", (n, c_outer, h, w, c)) == (n, c_outer * c, h, w)


@given(o=dims, i=dims, kh=st.integers(1, 7), kw=st.integers(1, 7), ib=blocks, ob=blocks)
def test_oihw_io_unpacks_to_oihw(o, i, kh, kw, ib, ob):
    assert unpack((o, i, kh, kw, ib, ob), f"OIHW{ib}i{ob}o") == (o * ob, i * ib, kh, kw)


@given(o=dims, i=dims, ib=st.sampled_from([1, 2, 4]), ob=blocks)
def test_int8_kernel_layout_multiplies_both_input_subaxes(o, i, ib, ob):
    # OIHW{i/4}i{o}o4i: the input channel is split twice
    assert unpack((o, i, 3, 3, ib, ob, 4), f"OIHW{ib}i{ob}o4i") == (o * ob, i * ib * 4, 3, 3)


@given(n=dims, c=dims, h=dims, w=dims)
def test_nhwc_reorders_to_nchw(n, c, h, w):
    assert unpack((n, h, w, c), "NHWC", "NCHW") == (n, c, h, w)


def test_layout_errors_are_clear():
    with pytest.raises(LayoutError, match="dimensions"):
        unpack((1, 2, 3), "NCHW")
    with pytest.raises(LayoutError, match="needs a size"):
        unpack((1, 2, 3, 4, 5), "NCHWc")


conv_cases = st.tuples(
    st.integers(1, 4), st.sampled_from([3, 16, 32, 64]), st.sampled_from([7, 14, 28, 56]),
    st.sampled_from([16, 32, 64]), st.sampled_from([1, 3, 5]), st.sampled_from([1, 2]), st.sampled_from([8, 16]))


@given(conv_cases)
def test_relay_nchw_nhwc_nchwc_and_autotvm_agree_on_the_key(case):
    n, cin, size, cout, k, s, bn = case
    pad = k // 2
    attrs = {"strides": [s, s], "padding": [pad, pad], "kernel_size": [k, k], "channels": cout}
    nchw = from_relay_call("nn.conv2d", attrs, [(n, cin, size, size), (cout, cin, k, k)], ["float32", "float32"])
    nhwc = from_relay_call("nn.conv2d", {**attrs, "data_layout": "NHWC", "kernel_layout": "HWIO"},
                           [(n, size, size, cin), (k, k, cin, cout)], ["float32", "float32"])
    packed = from_relay_call(
        "nn.contrib_conv2d_NCHWc",
        {**attrs, "data_layout": f"NCHW{bn}c", "kernel_layout": f"OIHW{bn}i{bn}o", "out_layout": f"NCHW{bn}c"},
        [(n, max(cin // bn, 1), size, size, min(bn, cin)), (cout // bn, max(cin // bn, 1), k, k, min(bn, cin), bn)],
        ["float32", "float32"])
    task = from_autotvm_task("conv2d_NCHWc.x86", [
        ["TENSOR", [n, cin, size, size], "float32"], ["TENSOR", [cout, cin, k, k], "float32"],
        [s, s], [pad, pad, pad, pad], [1, 1], "NCHW", "NCHW", "float32"])
    assert nchw.key == nhwc.key == task.key
    if cin % bn == 0:
        assert packed.key == nchw.key
    expected_out = (size + 2 * pad - k) // s + 1
    assert nchw.out == (n, cout, expected_out, expected_out)
    assert nchw.flops == 2 * n * cout * expected_out ** 2 * cin * k * k


def test_depthwise_from_relay_and_cuda_task_agree():
    relay = from_relay_call("nn.conv2d", {"groups": 32, "channels": 32, "padding": [1, 1, 1, 1]},
                            [(1, 32, 112, 112), (32, 1, 3, 3)], ["float32"])
    task = from_autotvm_task("depthwise_conv2d_nchw.cuda", [
        ["TENSOR", [1, 32, 112, 112], "float32"], ["TENSOR", [32, 1, 3, 3], "float32"],
        [1, 1], [1, 1, 1, 1], [1, 1], "float32"])
    assert relay.family == task.family == "depthwise_conv2d"
    assert relay.key == task.key
    assert relay.flops == 2 * 32 * 112 * 112 * 9


def test_dense_families_share_a_key():
    relay = from_relay_call("nn.dense", {"units": 1000}, [(1, 512), (1000, 512)], ["float32"])
    packed = from_relay_call("nn.contrib_dense_pack", {}, [(1, 512), (62, 512, 16)], ["float32"])
    for name in ("dense_nopack.x86", "dense_pack.x86", "dense_small_batch.gpu"):
        task = from_autotvm_task(name, [["TENSOR", [1, 512], "float32"], ["TENSOR", [1000, 512], "float32"], None, "float32"])
        assert task.key == relay.key
    assert packed.weight == (992, 512)
    assert relay.flops == 2 * 1000 * 512


def test_batch_matmul_transposes_are_canonical():
    a = from_relay_call("nn.batch_matmul", {"transpose_b": True}, [(12, 128, 64), (12, 128, 64)], ["float32"])
    b = from_relay_call("nn.batch_matmul", {"transpose_b": False}, [(12, 128, 64), (12, 64, 128)], ["float32"])
    assert a.key == b.key and a.out == (12, 128, 128)


def test_contradictory_shapes_raise():
    with pytest.raises(WorkloadError, match="channels"):
        conv_workload((1, 64, 56, 56), (64, 32, 3, 3))


@pytest.mark.parametrize("symbol, base, number, family", [
    ("fused_nn_contrib_conv2d_NCHWc_add_nn_relu_5", "fused_nn_contrib_conv2d_NCHWc_add_nn_relu", 5, "conv2d"),
    ("tvmgen_default_fused_nn_dense_add", "fused_nn_dense_add", 0, "dense"),
    ("vm_mod_fused_nn_conv2d_add_nn_relu_1", "fused_nn_conv2d_add_nn_relu", 1, "conv2d"),
    ("fused_nn_contrib_depthwise_conv2d_NCHWc_add_clip_2", "fused_nn_contrib_depthwise_conv2d_NCHWc_add_clip", 2, "depthwise_conv2d"),
    ("fused_layout_transform_nn_batch_flatten", "fused_layout_transform_nn_batch_flatten", 0, "layout_transform"),
    ("tvmgen_default_fused_nn_max_pool2d_3", "fused_nn_max_pool2d", 3, "max_pool2d"),
    ("fuse__contrib_conv2d_NCHWc_1", "fuse_contrib_conv2d_NCHWc", 1, "conv2d"),
    ("fused_nn_batch_matmul_2", "fused_nn_batch_matmul", 2, "batch_matmul"),
])
def test_kernel_names(symbol, base, number, family):
    k = parse_kernel_name(symbol)
    assert (k.base, k.number, k.family) == (base, number, family)


@given(st.lists(st.sampled_from(["nn_conv2d", "add", "nn_relu", "multiply", "clip", "nn_dense"]), min_size=1, max_size=5),
       st.integers(0, 200), st.sampled_from(["", "tvmgen_default_", "vm_mod_"]))
def test_kernel_name_number_and_prefix_round_trip(ops, number, prefix):
    base = "fused_" + "_".join(ops)
    symbol = prefix + base + (f"_{number}" if number else "")
    k = parse_kernel_name(symbol)
    assert k.base == base and k.number == number
    if "nn_conv2d" in ops:
        assert k.family == "conv2d"
    elif "nn_dense" in ops:
        assert k.family == "dense"


prefixes = st.lists(st.sampled_from(["tvmgen_default_", "tvmgen_mod1_", "vm_mod_", "__tvm_", "tvmgen_", "vm_", "_"]),
                    max_size=3)


bodies = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=30)


@given(prefix=prefixes, body=bodies)
def test_the_symbol_prefix_rule_is_the_sql_macro(prefix, body):
    """workload/families.py strips kernel-symbol prefixes as queries/kernel_symbol.sql does."""
    import duckdb

    from hotdb.resources import sql_dir
    from hotdb.workload.families import _PREFIXES

    con = _MACRO_CON.setdefault("con", duckdb.connect())
    if "macro" not in _MACRO_CON:
        con.execute((sql_dir("queries") / "kernel_symbol.sql").read_text())
        _MACRO_CON["macro"] = True
    name = "".join(prefix) + body
    assert con.execute("SELECT kernel_symbol(?)", [name]).fetchall()[0][0] == _PREFIXES.sub("", name, count=1)


_MACRO_CON: dict = {}


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


def test_targets_have_one_normal_form_whoever_wrote_them():
    from hotdb.workload.targets import canonical

    metaschedule = '{"keys":["cpu"],"kind":"llvm","mtriple":"x86_64-linux-gnu","num-cores":2,"tag":""}'
    spellings = [metaschedule,
                 '{"kind": "llvm", "tag": "", "keys": "(\\"cpu\\",)", "num-cores": 2, "mtriple": "x86_64-linux-gnu"}',
                 {"kind": "llvm", "keys": ("cpu",), "num-cores": 2, "mtriple": "x86_64-linux-gnu", "tag": ""},
                 "llvm -keys=cpu -mtriple=x86_64-linux-gnu -num-cores=2 -tag="]
    assert {canonical(s) for s in spellings} == {metaschedule}
    assert canonical("cuda -keys=cuda,gpu -max_num_threads=1024") == \
        '{"keys":["cuda","gpu"],"kind":"cuda","max_num_threads":1024}'
    assert canonical(None) is None and canonical("  ") is None


def test_target_text_shows_the_normal_form_as_tvm_printed_targets():
    from hotdb.store.connection import Store
    from hotdb.workload.targets import canonical

    with Store(":memory:") as store:
        show = lambda t: store.con.execute("SELECT target_text(?)", [t]).fetchall()[0][0]  # noqa: E731
        assert show(canonical("llvm -keys=cpu -mcpu=core-avx2 -num-cores=4")) == "llvm -keys=cpu -mcpu=core-avx2 -num-cores=4"
        assert show('{"host":{"kind":"llvm"},"keys":["cuda","gpu"],"kind":"cuda","tag":""}') == \
            "cuda -host=llvm -keys=cuda,gpu"
        assert show("not json") == "not json" and show(None) is None


def test_matmul_of_any_rank_is_one_gemm_keyed_as_dense_or_batch_matmul():
    """Relax's R.matmul is numpy's: (..., M, K) x (K, N). An LLM's projections are
    (1, seq, K) x (K, N) (mlc-llm's LLaMA printouts): one GEMM of the leading dims as M,
    keyed as the dense of the same GEMM; the output keeps the operator's shape."""
    llm = from_relay_call("matmul", {}, [(1, 1, 4096), (4096, 11008)], ["float16"])
    flat = from_relay_call("nn.dense", {}, [(1, 4096), (11008, 4096)], ["float16"])
    assert llm.key == flat.key and llm.out == (1, 1, 11008)
    assert from_relay_call("nn.dense", {}, [(2, 3, 16), (8, 16)], ["float32"]).key == \
        from_relay_call("nn.dense", {}, [(6, 16), (8, 16)], ["float32"]).key
    # both operands batched: a batch_matmul of the batch dims folded, broadcast as numpy does
    attention = from_relay_call("matmul", {}, [(1, 32, 7, 128), (1, 32, 128, 7)], ["float32"])
    assert attention.key == from_relay_call("nn.batch_matmul", {"transpose_b": False},
                                            [(32, 7, 128), (32, 128, 7)], ["float32"]).key
    assert attention.out == (1, 32, 7, 7)
    assert from_relay_call("matmul", {}, [(4, 7, 128), (1, 128, 9)], ["float32"]).out == (4, 7, 9)
    # the kernel of that call, named by its buffers, gets the same key
    assert from_kernel_args("matmul", [((1, 1, 4096), "float16"), ((4096, 11008), "float16"),
                                       ((1, 1, 11008), "float16")]).key == llm.key
    with pytest.raises(WorkloadError, match=r"disagree on K \(16 and 8\)"):
        from_relay_call("matmul", {}, [(5, 16), (8, 16)], ["float32"])


@given(lead=st.lists(dims, min_size=1, max_size=3), k=dims, n=dims)
def test_a_matmul_folds_its_leading_dims_into_rows(lead, k, n):
    nd = from_relay_call("matmul", {}, [(*lead, k), (k, n)], ["float32"])
    flat = from_relay_call("matmul", {}, [(math.prod(lead), k), (k, n)], ["float32"])
    assert nd.key == flat.key and nd.out == (*lead, n) and nd.flops == flat.flops
