"""AutoTVM tasks whose tensors are printed packed name the workload of the logical task
(hotdb/workload/autotvm.py), by the rules the matching ladder unpacks a kernel's shapes with
(keys.logical_operands): x86's NCHW{c}c data and OIHW{i}i{o}o / OIHW{i}i{o}o4i kernels,
dense_pack's (N/n, K, n) weight, VNNI's (N/16, K/4, 16, 4), and bitserial tasks with their
bits. Fixtures: tests/data/packed-tasks/make_fixtures.py, from the bundled VGG-16 example."""

from __future__ import annotations

import importlib.util
import json

from helpers import DATA
from hypothesis import given
from hypothesis import strategies as st

from hotdb.workload import from_autotvm_task, from_relay_call, logical_operands

PACKED = DATA / "packed-tasks"
_spec = importlib.util.spec_from_file_location("make_packed", PACKED / "make_fixtures.py")
made = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(made)
TASKS = "SELECT task_name, workload_key, data_shape_logical, weight_shape_logical FROM tasks ORDER BY task_index"


def test_made_packed_tasks_are_what_the_generator_writes(tmp_path):
    made.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in PACKED.glob("vgg16_*"))
    for path in tmp_path.iterdir():
        assert path.read_text() == (PACKED / path.name).read_text(), path.name


def test_a_log_of_packed_records_names_the_workloads_of_the_logical_log(cli, tmp_path, vgg16):
    def stored(log):
        db = ("--db", tmp_path / f"{log.name}.duckdb")
        result = cli(*db, "ingest", vgg16["table"], vgg16["relay"], log, "--model", "vgg16", use_db=False)
        assert result.code == 0 and "cannot derive" not in result.err, result.err
        return (cli(*db, "sql", TASKS, "-f", "json", use_db=False).json(),
                cli(*db, "matches", "-f", "json", use_db=False).json())

    packed_log = PACKED / "vgg16_packed.autotvm.log"
    assert '["TENSOR", [2, 1, 3, 3, 3, 32], "float32"]' in packed_log.read_text()  # a kernel as AlterOpLayout packs it
    tasks, matches = stored(packed_log)
    logical_tasks, logical_matches = stored(vgg16["log"])
    assert [(t["task_name"], t["workload_key"]) for t in tasks] == \
        [(t["task_name"], t["workload_key"]) for t in logical_tasks]
    assert all(t["workload_key"] for t in tasks) and len(tasks) == 15
    assert [(m["node"], m["method"], m["workload"]) for m in matches] == \
        [(m["node"], m["method"], m["workload"]) for m in logical_matches]


def _conv_attrs(args) -> dict:
    return {"strides": args[2], "padding": args[3], "dilation": args[4]}


def _tasks(name: str) -> list[tuple[str, list]]:
    out = []
    for line in (PACKED / name).read_text().splitlines():
        args = line.split("args=", 1)[1].split(", kwargs=", 1)[0]
        out.append((line.split("func_name=", 1)[1].split(",", 1)[0],
                    json.loads(args.replace("(", "[").replace(")", "]").replace("'", '"').replace("None", "null")
                               .replace(",]", "]"))))
    return out


def test_int8_tasks_name_the_relay_calls_and_the_kernels_of_their_shapes(cli, db):
    """conv2d_NCHWc_int8 (7-D kernels) and dense_vnni tasks: the workload of the uint8
    Relay call of the layer's logical shapes, and of a kernel called with the packed shapes."""
    result = cli("ingest", PACKED / "vgg16_int8.tasks.txt", "--model", "m")
    assert result.code == 0 and "cannot derive" not in result.err, result.err
    stored = [t["workload_key"] for t in cli("sql", TASKS, "-f", "json").json()]
    expected = []
    for name, args in _tasks("vgg16_int8.tasks.txt"):
        (_, data, dtype), (_, weight, _) = args[0], args[1]
        family = "conv2d" if name.startswith("conv2d") else "dense"
        logical = logical_operands(family, [data, weight])
        relay = from_relay_call("nn.conv2d" if family == "conv2d" else "nn.dense",
                                _conv_attrs(args) if family == "conv2d" else {}, list(logical), [dtype, "int8"])
        assert relay.dtype == "uint8"
        expected.append(relay.key)
    assert stored == expected and len(stored) == 10


def test_bitserial_tasks_name_the_relay_calls_with_their_bits(cli, db):
    result = cli("ingest", PACKED / "vgg16_bitserial.tasks.txt", "--model", "m")
    assert result.code == 0 and "cannot derive" not in result.err, result.err
    stored = [t["workload_key"] for t in cli("sql", TASKS, "-f", "json").json()]
    expected = []
    for name, args in _tasks("vgg16_bitserial.tasks.txt"):
        (_, data, dtype), (_, weight, _) = args[0], args[1]
        if name.startswith("bitserial_conv2d"):
            attrs = {**_conv_attrs(args[:4] + [None]), "activation_bits": 2, "weight_bits": 1, "data_layout": "NHWC",
                     "kernel_layout": "HWIO"}
            relay = from_relay_call("nn.bitserial_conv2d", attrs, [data, weight], [dtype, dtype])
        else:
            relay = from_relay_call("nn.bitserial_dense", {"data_bits": 2, "weight_bits": 1}, [data, weight], [dtype, dtype])
        expected.append(relay.key)
    assert stored == expected and len(stored) == 11
    assert stored[-1] == "dense uint8 d=1x4096 w=1000x4096 bits=2x1 unipolar=1"
    plain = from_relay_call("nn.dense", {}, [[1, 4096], [1000, 4096]], ["uint8"])
    assert plain.key == "dense uint8 d=1x4096 w=1000x4096"  # the same shapes at 8 bits: another workload


_BLOCKS = st.sampled_from([1, 2, 4, 8, 16, 32])


@given(st.integers(1, 2), st.sampled_from([16, 32, 64]), st.sampled_from([7, 14, 28]), st.sampled_from([16, 32, 64]),
       st.sampled_from([1, 3]), st.sampled_from([1, 2]), _BLOCKS, _BLOCKS)
def test_packed_and_logical_conv2d_nchwc_tasks_share_a_key(n, cin, size, cout, k, s, ic, oc):
    ic, oc = min(ic, cin), min(oc, cout)
    pad = k // 2
    rest = [[s, s], [pad, pad, pad, pad], [1, 1]]
    logical = from_autotvm_task("conv2d_NCHWc.x86", [["TENSOR", [n, cin, size, size], "float32"],
                                                     ["TENSOR", [cout, cin, k, k], "float32"], *rest, "NCHW", "NCHW", "float32"])
    packed = from_autotvm_task("conv2d_NCHWc.x86", [
        ["TENSOR", [n, cin // ic, size, size, ic], "float32"], ["TENSOR", [cout // oc, cin // ic, k, k, ic, oc], "float32"],
        *rest, f"NCHW{ic}c", f"NCHW{oc}c", "float32"])
    assert packed.key == logical.key
    if ic % 4 == 0:
        int8 = from_autotvm_task("conv2d_NCHWc_int8.x86", [
            ["TENSOR", [n, cin // ic, size, size, ic], "uint8"],
            ["TENSOR", [cout // oc, cin // ic, k, k, ic // 4, oc, 4], "int8"], *rest, f"NCHW{ic}c", f"NCHW{oc}c", "int32"])
        assert int8.key == logical.key.replace("float32", "uint8")
    depthwise = from_autotvm_task("depthwise_conv2d_NCHWc.x86", [
        ["TENSOR", [n, cin // ic, size, size, ic], "float32"], ["TENSOR", [cin // ic, 1, k, k, 1, ic], "float32"],
        *rest, f"NCHW{ic}c", f"NCHW{ic}c", "float32"])
    assert depthwise.key == from_autotvm_task("depthwise_conv2d_nchw.x86", [
        ["TENSOR", [n, cin, size, size], "float32"], ["TENSOR", [cin, 1, k, k], "float32"], *rest, "float32"]).key


@given(st.sampled_from([1, 8, 32]), st.sampled_from([64, 512, 4096]), st.sampled_from([64, 1024, 4096]), _BLOCKS)
def test_packed_dense_weights_are_the_logical_ones(m, k, n, bn):
    logical = from_autotvm_task("dense_nopack.x86", [["TENSOR", [m, k], "float32"], ["TENSOR", [n, k], "float32"], None, "float32"])
    pack = from_autotvm_task("dense_pack.x86", [["TENSOR", [m, k], "float32"], ["TENSOR", [n // bn, k, bn], "float32"],
                                                None, "float32"])
    relay = from_relay_call("nn.contrib_dense_pack", {}, [(m, k), (n // bn, k, bn)], ["float32"])
    assert pack.key == logical.key == relay.key
    vnni = from_autotvm_task("dense_vnni.x86", [["TENSOR", [m, k], "uint8"], ["TENSOR", [n // 16, k // 4, 16, 4], "int8"],
                                                None, "int32"])
    assert vnni.key == logical.key.replace("float32", "uint8")
