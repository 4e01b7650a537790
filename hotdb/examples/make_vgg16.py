"""Write the artifacts of one VGG-16 build for x86, as TVM 0.7-0.9 printed them.

Current apache-tvm has no Relay, AutoTVM or graph debug runtime, so these files are
written from the network's definition following the printers' rules in
docs/formats.md (the debug table, Relay text, Task repr and v0.2 log, kernel
naming and packed layouts):

* Relay text as `relay.testing.vgg.get_workload(num_layers=16)` prints it
  (conv2d + bias_add + relu, max_pool2d, batch_flatten, dense, dropout, softmax);
* AutoTVM tasks as `print(task)` for each task `extract_from_program` returns
  (conv2d_NCHWc.x86 per distinct convolution; dense_nopack.x86 and dense_pack.x86 per
  dense), and a v0.2 tuning log with a few records per task;
* the debug runtime's printed table after AlterOpLayout (NCHW{c}c activations, layout
  transforms between convolutions whose block sizes differ), FuseOps (conv2d + add +
  relu), kernels numbered per base name opposite to execution order and repeated call
  sites named func, func1, func2 (TVM <= 0.9), rows sorted by time.

Times are modelled, not measured: FLOPs over a per-layer throughput drawn from a seeded
generator, memory-bound layers by bytes. The matching truth (node -> task) is written
beside the artifacts so that tests can check every match.

* optionally the debug executor's dump folder of the same run (graph dump with every
  node's inputs and shapes, packed weights included, and the execution trace).

    python -m hotdb.examples.make_vgg16 OUT_DIR [--tvm 0.8|0.9] [--seed N] [--dump]
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path

# (name, in_channels, out_channels, spatial size) of VGG-16's convolutions, 3x3, pad 1.
CONVS = [
    ("conv1_1", 3, 64, 224), ("conv1_2", 64, 64, 224),
    ("conv2_1", 64, 128, 112), ("conv2_2", 128, 128, 112),
    ("conv3_1", 128, 256, 56), ("conv3_2", 256, 256, 56), ("conv3_3", 256, 256, 56),
    ("conv4_1", 256, 512, 28), ("conv4_2", 512, 512, 28), ("conv4_3", 512, 512, 28),
    ("conv5_1", 512, 512, 14), ("conv5_2", 512, 512, 14), ("conv5_3", 512, 512, 14),
]
POOL_AFTER = {"conv1_2", "conv2_2", "conv3_3", "conv4_3", "conv5_3"}
DENSES = [("fc6", 25088, 4096, True), ("fc7", 4096, 4096, True), ("fc8", 4096, 1000, False)]
# x86 NCHWc block sizes (ic_bn, oc_bn) per convolution, as AlterOpLayout takes them
# from the tuned configs: a change between one conv's oc_bn and the next conv's ic_bn
# inserts a layout_transform kernel.
BLOCKS = {
    "conv1_1": (3, 32), "conv1_2": (32, 32), "conv2_1": (32, 64), "conv2_2": (16, 64),
    "conv3_1": (64, 32), "conv3_2": (32, 32), "conv3_3": (32, 32),
    "conv4_1": (32, 64), "conv4_2": (64, 64), "conv4_3": (64, 64),
    "conv5_1": (16, 16), "conv5_2": (16, 16), "conv5_3": (16, 16),
}


def conv_args(cin: int, cout: int, size: int) -> list:
    return [["TENSOR", [1, cin, size, size], "float32"], ["TENSOR", [cout, cin, 3, 3], "float32"],
            [1, 1], [1, 1, 1, 1], [1, 1], "NCHW", "NCHW", "float32"]


def dense_args(k: int, n: int) -> list:
    return [["TENSOR", [1, k], "float32"], ["TENSOR", [n, k], "float32"], None, "float32"]


@dataclass
class Call:
    """One call site in execution order, before naming."""

    base: str
    shape_key: tuple  # calls with equal (base, shape_key) run the same kernel
    out_shape: tuple
    num_inputs: int
    time_us: float
    task: tuple[str, list] | None = None  # (task_name, args) for tunable calls
    params: tuple = ()  # shapes of the weight inputs after the data input (packed as built)


def build_calls(rng: random.Random) -> list[Call]:
    calls: list[Call] = []
    kernel_speed: dict[tuple, float] = {}

    def conv_time(name, cin, cout, size):
        flops = 2.0 * cout * size * size * cin * 9
        key = (cin, cout, size)
        # GFLOP/s of this kernel: equal convolutions are one kernel and run equally fast
        speed = kernel_speed.setdefault(key, rng.uniform(45, 110) * (0.35 if cin == 3 else 1.0))
        return flops / (speed * 1e3)

    def lt(c_outer_from, size, bn):
        bytes_moved = 4 * c_outer_from * size * size * 2
        return Call("fused_layout_transform", (c_outer_from, size, bn), (1, c_outer_from // bn, size, size, bn),
                    1, bytes_moved / 6e3 + 4.0)

    channels_bn = None
    calls.append(lt(3, 224, 3))  # data NCHW -> NCHW3c
    calls[-1].out_shape = (1, 1, 224, 224, 3)
    channels_bn = 3
    for name, cin, cout, size in CONVS:
        ic_bn, oc_bn = BLOCKS[name]
        if channels_bn != ic_bn:
            calls.append(lt(cin, size, ic_bn))
        calls.append(Call("fused_nn_contrib_conv2d_NCHWc_add_nn_relu", (cin, cout, size),
                          (1, cout // oc_bn, size, size, oc_bn), 3, conv_time(name, cin, cout, size),
                          ("conv2d_NCHWc.x86", conv_args(cin, cout, size)),
                          ((cout // oc_bn, cin // ic_bn, 3, 3, ic_bn, oc_bn), (1, cout // oc_bn, 1, 1, oc_bn))))
        channels_bn = oc_bn
        if name in POOL_AFTER:
            half = size // 2
            calls.append(Call("fused_nn_max_pool2d", (cout, size), (1, cout // oc_bn, half, half, oc_bn), 1,
                              4 * cout * size * size / 5e3 + 3.0))
    calls.append(Call("fused_layout_transform_nn_batch_flatten", (), (1, 25088), 1, 25088 * 8 / 6e3 + 3.0))
    for name, k, n, relu in DENSES:
        base = "fused_nn_dense_add_nn_relu" if relu else "fused_nn_dense_add"
        time_us = 4.0 * k * n / (rng.uniform(14, 22) * 1e3)  # weight bytes at 14-22 GB/s
        calls.append(Call(base, (k, n), (1, n), 3, time_us, ("dense_nopack.x86", dense_args(k, n)), ((n, k), (1, n))))
    calls.append(Call("fused_nn_softmax", (), (1, 1000), 1, 9.5))
    return calls


def name_kernels(calls: list[Call], prefix: str) -> list[str]:
    """Kernel symbols: per base name, distinct kernels numbered opposite to execution order."""
    order: dict[str, list[tuple]] = {}
    for c in calls:
        keys = order.setdefault(c.base, [])
        if c.shape_key not in keys:
            keys.append(c.shape_key)
    names = []
    for c in calls:
        keys = order[c.base]
        number = len(keys) - 1 - keys.index(c.shape_key)
        names.append(prefix + c.base + (f"_{number}" if number else ""))
    return names


def node_names(funcs: list[str]) -> list[str]:
    """Graph node names as TVM <= 0.9's _GetUniqueName gives them: func, func1, func2, ..."""
    seen: dict[str, int] = {}
    out = []
    for func in funcs:
        name = func
        while name in seen:
            index = seen[name]
            seen[name] += 1
            name = name + str(index)
        seen[name] = 1
        out.append(name)
    return out


def debug_table(calls, funcs, nodes, rng, measurements: bool, repeats: int = 3) -> str:
    rows = []
    for call, func, node in zip(calls, funcs, nodes):
        samples = [call.time_us * rng.uniform(0.97, 1.03) for _ in range(repeats)]
        mean = round(sum(samples) / len(samples), 3)
        rows.append([node, func, mean, str(call.out_shape), str(call.num_inputs), "1",
                     str([round(s, 3) for s in samples])])
    total = sum(r[2] for r in rows)
    rows.sort(key=lambda r: -r[2])
    header = ["Node Name", "Ops", "Time(us)", "Time(%)", "Shape", "Inputs", "Outputs"]
    if measurements:
        header.append("Measurements(us)")
    cells = [[r[0], r[1], f"{r[2]:.3f}".rstrip("0").rstrip("."), str(round(100 * r[2] / total, 3)), r[3], r[4], r[5]]
             + ([r[6]] if measurements else []) for r in rows]
    cells.append(["Total_time", "-", f"{total:.3f}".rstrip("0").rstrip(".")] + ["-"] * (len(header) - 3))
    widths = [max(len(h), *(len(c[i]) for c in cells)) + 2 for i, h in enumerate(header)]
    fmt = lambda row: "".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
    lines = [fmt(header), fmt(["-" * len(h) for h in header])] + [fmt(c) for c in cells]
    return "\n".join(lines) + "\n"


def debug_dump(calls, funcs, nodes, folder: Path) -> None:
    """The debug executor's dump folder (docs/formats.md, TVM >= 0.12): the graph JSON after
    its in-place rewrite (op = func_name, inputs = node names, shape = first output) and
    the Chrome trace of mean node times (params as zero-length events)."""
    folder.mkdir(parents=True, exist_ok=True)
    graph_nodes, events = [], []
    ts = 0.0
    def add(node):
        nonlocal ts
        graph_nodes.append(node)
        duration = node.pop("_time", 0.0)
        events.append({"ts": ts, "tid": 1, "pid": 1, "name": node["name"], "ph": "B"})
        ts += duration
        events.append({"ts": ts, "tid": 1, "pid": 1, "name": node["name"], "ph": "E"})
    add({"op": "param", "name": "data", "inputs": [], "attrs": {"T": "type: float32"}, "shape": [1, 3, 224, 224]})
    previous = "data"
    p = 0
    for call, func, node in zip(calls, funcs, nodes):
        inputs = [previous]
        for shape in call.params:
            add({"op": "param", "name": f"p{p}", "inputs": [], "attrs": {"T": "type: float32"}, "shape": list(shape)})
            inputs.append(f"p{p}")
            p += 1
        add({"op": func, "name": node, "inputs": inputs, "shape": list(call.out_shape), "_time": call.time_us,
             "attrs": {"func_name": func, "num_inputs": str(len(inputs)), "num_outputs": "1",
                       "flatten_data": "0", "T": "type: float32"}})
        previous = node
    graph = {"nodes": graph_nodes, "arg_nodes": [i for i, n in enumerate(graph_nodes) if n["op"] == "param"],
             "heads": [[len(graph_nodes) - 1, 0, 0]], "node_row_ptr": list(range(len(graph_nodes) + 1))}
    (folder / "_tvmdbg_graph_dump.json").write_text(json.dumps(graph, indent=1))
    (folder / "_tvmdbg_execution_trace.json").write_text(json.dumps({"displayTimeUnit": "ns", "traceEvents": events}))
    return graph


def graph_json(dump_graph: dict) -> str:
    """lib.get_graph_json() of the same build: the dump's graph before the debug
    executor's rewrite (inputs as [nid, index, version], shapes per entry in attrs)."""
    index = {n["name"]: i for i, n in enumerate(dump_graph["nodes"])}
    nodes = []
    for n in dump_graph["nodes"]:
        if n["op"] == "param":
            nodes.append({"op": "null", "name": n["name"], "inputs": []})
        else:
            attrs = {k: v for k, v in n["attrs"].items() if k != "T"}
            nodes.append({"op": "tvm_op", "name": n["name"], "attrs": attrs,
                          "inputs": [[index[i], 0, 0] for i in n["inputs"]]})
    graph = {"nodes": nodes, "arg_nodes": dump_graph["arg_nodes"], "heads": dump_graph["heads"],
             "attrs": {"dltype": ["list_str", ["float32"] * len(nodes)],
                       "shape": ["list_shape", [n["shape"] for n in dump_graph["nodes"]]],
                       "storage_id": ["list_int", list(range(len(nodes)))]},
             "node_row_ptr": dump_graph["node_row_ptr"]}
    return json.dumps(graph, indent=1)


def relay_text() -> str:
    params = ["%data: Tensor[(1, 3, 224, 224), float32]"]
    body = []
    v = 0
    last = "%data"

    def emit(expr, ty):
        nonlocal v, last
        body.append(f"  %{v} = {expr} /* ty={ty} */;")
        last = f"%{v}"
        v += 1

    size = 224
    for name, cin, cout, size in CONVS:
        params += [f"%{name}_weight: Tensor[({cout}, {cin}, 3, 3), float32]", f"%{name}_bias: Tensor[({cout}), float32]"]
        t = f"Tensor[(1, {cout}, {size}, {size}), float32]"
        emit(f"nn.conv2d({last}, %{name}_weight, padding=[1, 1, 1, 1], channels={cout}, kernel_size=[3, 3])", t)
        emit(f"nn.bias_add({last}, %{name}_bias)", t)
        emit(f"nn.relu({last})", t)
        if name in POOL_AFTER:
            half = size // 2
            emit(f"nn.max_pool2d({last}, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])",
                 f"Tensor[(1, {cout}, {half}, {half}), float32]")
    emit(f"nn.batch_flatten({last})", "Tensor[(1, 25088), float32]")
    for name, k, n, relu in DENSES:
        params += [f"%{name}_weight: Tensor[({n}, {k}), float32]", f"%{name}_bias: Tensor[({n}), float32]"]
        t = f"Tensor[(1, {n}), float32]"
        emit(f"nn.dense({last}, %{name}_weight, units={n})", t)
        emit(f"nn.bias_add({last}, %{name}_bias, axis=-1)", t)
        if relu:
            emit(f"nn.relu({last})", t)
            emit(f"nn.dropout({last})", f"({t}, {t})")
            body.append(f"  %{v} = %{v - 1}.0;")
            last = f"%{v}"
            v += 1
    body.append(f"  nn.softmax({last}) /* ty=Tensor[(1, 1000), float32] */")
    return ('#[version = "0.0.5"]\n'
            f"def @main({', '.join(params)}) -> Tensor[(1, 1000), float32] {{\n"
            + "\n".join(body) + "\n}\n")


def py_repr(value) -> str:
    """Python's repr of AutoTVM args, whose lists are tuples."""
    if isinstance(value, list):
        inner = ", ".join(py_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def tasks(calls) -> list[tuple[str, list]]:
    out = []
    for c in calls:
        if c.task and c.task not in out:
            out.append(c.task)
            if c.task[0] == "dense_nopack.x86":
                out.append(("dense_pack.x86", c.task[1]))
    return out


def task_reprs(task_list) -> str:
    lines = []
    for name, args in task_list:
        lines.append(f"Task(func_name={name}, args={py_repr(args)}, kwargs={{}}, "
                     f"workload=({name!r}, {py_repr(args)[1:-1]}))")
    return "\n".join(lines) + "\n"


def tuning_log(task_list, rng) -> str:
    lines = []
    t0 = 1650000000.0
    for name, args in task_list:
        for trial in range(3):
            if name.startswith("conv2d"):
                cin, cout = args[0][1][1], args[1][1][0]
                entity = [["tile_ic", "sp", [cin // min(cin, 16), min(cin, 16)]],
                          ["tile_oc", "sp", [cout // 32, 32]], ["tile_ow", "sp", [args[0][1][3] // 8 or 1, 8]],
                          ["unroll_kw", "ot", trial % 2 == 0]]
            else:
                entity = [["tile_y", "sp", [1, 1]], ["tile_x", "sp", [args[1][1][0] // 16, 16]],
                          ["tile_k", "sp", [args[0][1][1] // 64, 64]]]
            error = 0 if trial < 2 else 4
            cost = [rng.uniform(1e-4, 5e-3)] if error == 0 else [1e9]
            t0 += rng.uniform(1, 3)
            record = {"input": ["llvm -mcpu=skylake-avx512", name, args, {}],
                      "config": {"index": rng.randrange(1000), "code_hash": None, "entity": entity},
                      "result": [cost, error, rng.uniform(1, 3), t0], "version": 0.2, "tvm_version": "0.8.0"}
            lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def write(out: Path, tvm: str = "0.8", seed: int = 16, dump: bool = False) -> dict[str, Path]:
    rng = random.Random(seed)
    calls = build_calls(rng)
    prefix = "tvmgen_default_"
    funcs = name_kernels(calls, prefix)
    nodes = node_names(funcs)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "table": out / "vgg16.debug_table.txt",
        "relay": out / "vgg16.relay.txt",
        "tasks": out / "vgg16.autotvm_tasks.txt",
        "log": out / "vgg16.autotvm.log",
        "truth": out / "vgg16.truth.json",
    }
    files["table"].write_text(debug_table(calls, funcs, nodes, rng, measurements=(tvm == "0.9")))
    files["relay"].write_text(relay_text())
    task_list = tasks(calls)
    files["tasks"].write_text(task_reprs(task_list))
    files["log"].write_text(tuning_log(task_list, rng))
    truth = [{"node": node, "func_name": func, "task_name": c.task[0] if c.task else None,
              "task_args": c.task[1] if c.task else None}
             for c, func, node in zip(calls, funcs, nodes)]
    files["truth"].write_text(json.dumps(truth, indent=1) + "\n")
    if dump:
        files["dump"] = out / "tvmdbg_vgg16" / "_tvmdbg_device_CPU_0"
        files["graph"] = out / "vgg16.graph.json"
        files["graph"].write_text(graph_json(debug_dump(calls, funcs, nodes, files["dump"])))
    return files


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tvm", choices=["0.8", "0.9"], default="0.8")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--dump", action="store_true", help="also write a debug executor dump folder")
    args = parser.parse_args()
    for path in write(args.out, args.tvm, args.seed, args.dump).values():
        print(path)
