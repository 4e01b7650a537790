"""Inputs of every reader, each of about a given size, for bench/memory_bounds.py --every-reader.

    python bench/reader_inputs.py NAME PATH BYTES [--gzip]    make one (NAME: one of MAKERS or MODEL_LOGS)

Each is made in the form the reader takes (tests/data and shared/real show each; nothing
of them is copied), with records that differ in their names and shapes (`dims(k)`: no two
records alike), so that what a reader keeps per distinct kernel, task or workload grows
with the size, the worst case for its memory. `BYTES` is the text's size; with --gzip the
file is that text gzip-compressed (a gzip is read whole, decompressed: hotdb/ingest/source.py).
A debug dump and a MetaSchedule database are folders: each of their two files is made
just under `BYTES`.

MODEL_LOGS are the other case, a model's tuning log: a real log of a few dozen workloads
(read where ../shared/real holds it, HOTDB_REAL; never copied) repeated to the size, as
a long tuning run logs the same workloads again and again.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import struct
import sys
from collections.abc import Callable
from pathlib import Path

TARGET = "llvm -keys=cpu -link-params=0 -mcpu=skylake-avx512"
F32 = '"float32"'


def dims(k: int) -> tuple[int, int]:
    """(channels, height) of record k: distinct for every k."""
    return 1 + k % 4096, 1 + k // 4096


def write(path: Path, size: int, head: str, record: Callable[[int], str],
          tail: Callable[[int], str] = lambda n: "", *, gz: bool = False, reserve: int = 4096) -> int:
    """`head`, record(0), record(1), ... and tail(count): at most `size` bytes of text
    (`reserve` kept for the tail). The count of records."""
    budget = size - len(head.encode()) - reserve
    out = gzip.open(path, "wb", compresslevel=1) if gz else path.open("wb")
    with out:
        out.write(head.encode())
        batch, k = [], 0
        while True:
            text = record(k).encode()
            if len(text) > budget:
                break
            budget -= len(text)
            batch.append(text)
            k += 1
            if len(batch) >= 4096:
                out.write(b"".join(batch))
                batch.clear()
        out.write(b"".join(batch))
        out.write(tail(k).encode())
    return k


def debug_table(path: Path, size: int, gz: bool = False) -> int:
    """TVM >= 0.9's debug executor table (tests/data/debug-table): a row a kernel."""
    head = ("Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs\n"
            "---------  ---  --------  -------  -----  ------  -------\n")

    def row(k):
        c, h = dims(k)
        name = f"tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_{k}"
        return f"{name}  {name}  {100 + k % 997}.25  0.001  (1, {c}, {h}, {h}, 8)  3  1\n"
    return write(path, size, head, row, gz=gz)


def debug_log(path: Path, size: int, gz: bool = False) -> int:
    """TVM 0.8's debug executor log (tests/data/debug-log): a kernel a node, 3 repeats each."""
    at = "[12:00:01] /workspace/src/runtime/graph_executor/debug/graph_executor_debug.cc"

    def node(k):
        lines = [f"{at}:65: Op #{k} tvmgen_default_fused_nn_conv2d_add_nn_relu_{k}:\n"]
        lines += [f"{at}:68: Iteration: {i}: {100 + k % 997 + i}.5 us/iter\n" for i in range(3)]
        return "".join(lines)
    return write(path, size, "INFO:root:Running individual nodes (3 repeats)\n", node, gz=gz)


def vm_stat(path: Path, size: int, gz: bool = False) -> int:
    """The Relay VM profiler's get_stat() with shapes (tests/data/vm-stat)."""
    def row(k):
        c, h = dims(k)
        t = 100 + k % 997
        return (f"vm_mod_fused_nn_conv2d_add_nn_relu_{k} [(1,{c},{h},{h}),({c},{c},3,3),(1,{c},1,1)],(1,{c},{h},{h})"
                f"\t10        \t{t * 10}/{t}/{t - 1}.5/{t + 1}.5\n")
    return write(path, size, "#OpNameNShape\t#InvokeCount\t#Duration(us): Sum/Mean/Min/Max\n", row, gz=gz)


def kernel_table(path: Path, size: int, gz: bool = False) -> int:
    """A hand-printed kernel table with shapes (tests/data/kernel-table, MLC's form)."""
    head = ("Name                                              Time (ms)   Count   Total time (ms)   Pct (%)   "
            "Memory (MB)     Bandwidth (GB/s)  Shape\n")

    def row(k):
        c, h = dims(k)
        t = (1 + k % 997) / 1000
        return (f"{f'fused_conv2d_add_relu_{k}':<50}{t:<12.4f}{1:<8}{t:<18.4f}{0.01:<10.2f}{1.5:<16.2f}{100.0:<18.4f}"
                f"(1, {c}, {h}, {h}), ({c}, {c}, 3, 3), ({c},), (1, {c}, {h}, {h})\n")
    return write(path, size, head, row, gz=gz)


def _call_shapes(k: int) -> str:
    c, h = dims(k)
    return f"float32[1, {c}, {h}, {h}], float32[{c}, {c}, 3, 3], float32[1, {c}, 1, 1], float32[1, {c}, {h}, {h}]"


def report_csv(path: Path, size: int, gz: bool = False) -> int:
    """Report.csv() (tests/data/profile-report): a call a row."""
    head = ("Argument Shapes,Count,Device,Duration (us),Hash,Name,Percent,data_layout,dst_layout,kernel_layout,"
            "layout,out_layout,src_layout\n")

    def row(k):
        return (f'"{_call_shapes(k)}",1,"cpu0",{100 + k % 997}.25,"{k:016x}","tvmgen_default_fused_nn_conv2d_add_nn_relu_{k}",'
                f'0.001,"NCHW","","OIHW","","",""\n')
    return write(path, size, head, row, gz=gz)


def report_json(path: Path, size: int, gz: bool = False) -> int:
    """Report.json() (tests/data/profile-report): calls, then each device's totals."""
    def call(k):
        return ((',' if k else '') + '{"Name":{"string":"tvmgen_default_fused_nn_conv2d_add_nn_relu_%d"},'
                '"Duration (us)":{"microseconds":%d.25},"Count":{"count":1},"Device":{"string":"cpu0"},'
                '"Argument Shapes":{"string":"%s"},"Hash":{"string":"%016x"},"data_layout":{"string":"NCHW"},'
                '"kernel_layout":{"string":"OIHW"},"Percent":{"percent":0.001}}' % (k, 100 + k % 997, _call_shapes(k), k))

    def tail(n):
        total = sum(100 + k % 997 + 0.25 for k in range(n))
        return ('],"device_metrics":{"cpu0":{"Count":{"count":%d},"Device":{"string":"cpu0"},"Duration (us)":'
                '{"microseconds":%.2f},"Name":{"string":"Total"},"Percent":{"percent":100.0}}},"configuration":'
                '{"Executor":{"string":"Graph"},"Number of threads":{"count":2}}}\n' % (n, total))
    return write(path, size, '{"calls":[', call, tail, gz=gz)


def report_table(path: Path, size: int, gz: bool = False) -> int:
    """Report's printed table (str(report)): columns right-aligned under the header."""
    head = f"{'Name':<60}{'Duration (us)':>15}{'Percent':>9}{'Device':>8}{'Count':>7}{'Argument Shapes':>110}\n"

    def row(k):
        return f"{f'tvmgen_default_fused_nn_conv2d_add_nn_relu_{k}':<60}{100 + k % 997 + 0.25:>15,.2f}{0.01:>9.2f}{'cpu0':>8}{1:>7}{_call_shapes(k):>110}\n"

    def tail(n):
        return (f"{'----------':<60}\n{'Sum':<60}{1.0:>15,.2f}{100:>9.2f}{'':>8}{n:>7}\n"
                f"{'Total':<60}{1.0:>15,.2f}{'':>9}{'cpu0':>8}{n:>7}\n\nConfiguration\n-------------\n"
                "Number of threads: 2\nExecutor: Graph\n")
    return write(path, size, head, row, tail, gz=gz)


def _sized(size: int, make: Callable[[int], str], per: int) -> str:
    """make(n) for the n whose text is just under `size` (a JSON document written whole)."""
    n = max(1, size // per)
    text = make(n)
    while len(text) > size:
        n = int(n * size / len(text) * 0.995)
        text = make(n)
    return text


def graph_json(path: Path, size: int, gz: bool = False) -> int:
    """The graph executor's graph JSON (tests/data/graph-json): a chain of kernels, each
    with a weight of its own, TVM's indent of one."""
    def make(n):
        nodes, shapes = [{"op": "null", "name": "data", "inputs": []}], [[1, 3, 8, 8]]
        for k in range(n):
            c, h = dims(k)
            name = f"tvmgen_default_fused_nn_conv2d_add_nn_relu_{k}"
            nodes.append({"op": "null", "name": f"p{k}", "inputs": []})
            nodes.append({"op": "tvm_op", "name": name, "attrs": {"func_name": name, "num_inputs": "2", "num_outputs": "1",
                          "flatten_data": "0"}, "inputs": [[len(nodes) - 2 if k else 0, 0, 0], [len(nodes) - 1, 0, 0]]})
            shapes += [[c, c, 3, 3], [1, c, h, h]]
        count = len(nodes)
        graph = {"nodes": nodes, "arg_nodes": [i for i, node in enumerate(nodes) if node["op"] == "null"],
                 "heads": [[count - 1, 0, 0]],
                 "attrs": {"dltype": ["list_str", ["float32"] * count], "storage_id": ["list_int", list(range(count))],
                           "shape": ["list_shape", shapes]},
                 "node_row_ptr": list(range(count + 1))}
        return json.dumps(graph, indent=1)
    _write_text(path, _sized(size, make, 600), gz)
    return (size // 600)


def _write_text(path: Path, text: str, gz: bool) -> None:
    data = text.encode()
    path.write_bytes(gzip.compress(data, compresslevel=1) if gz else data)


def debug_dump(folder: Path, size: int, gz: bool = False) -> int:
    """A debug executor dump folder (tests/data/debug-dump): the graph dump and the trace
    of one run, each just under `size`."""
    device = folder / "_tvmdbg_device_CPU_0"
    device.mkdir(parents=True)

    def nodes(n):
        out = [{"op": "param", "name": "data", "inputs": [], "attrs": {"T": "type: float32"}, "shape": [1, 3, 8, 8]}]
        for k in range(n):
            c, h = dims(k)
            name = f"tvmgen_default_fused_nn_conv2d_add_nn_relu_{k}"
            out.append({"op": "param", "name": f"p{k}", "inputs": [], "attrs": {"T": "type: float32"}, "shape": [c, c, 3, 3]})
            out.append({"op": name, "name": name, "inputs": [out[-2]["name"], f"p{k}"], "shape": [1, c, h, h],
                        "attrs": {"func_name": name, "num_inputs": "2", "num_outputs": "1", "flatten_data": "0",
                                  "T": "type: float32"}})
        return out

    def trace(n):
        events, ts = [], 0.0
        for node in nodes(n):
            events.append({"ts": ts, "tid": 1, "pid": 1, "name": node["name"], "ph": "B"})
            ts += 0.0 if node["op"] == "param" else 100.5
            events.append({"ts": ts, "tid": 1, "pid": 1, "name": node["name"], "ph": "E"})
        return json.dumps({"displayTimeUnit": "ns", "traceEvents": events})

    graph_text = _sized(size, lambda n: json.dumps({"nodes": nodes(n)}, indent=1), 700)
    n = (len(json.loads(graph_text)["nodes"]) - 1) // 2
    trace_text = trace(n)
    while len(trace_text) > size:
        n = int(n * size / len(trace_text) * 0.995)
        trace_text = trace(n)
    (device / "_tvmdbg_graph_dump.json").write_text(json.dumps({"nodes": nodes(n)}, indent=1))
    (device / "_tvmdbg_execution_trace.json").write_text(trace_text)
    return n


def autotvm_log(path: Path, size: int, gz: bool = False) -> int:
    """An AutoTVM log, v0.2 records (shared/real/autotvm-log): a workload each."""
    def record(k):
        c, h = dims(k)
        return ('{"input": ["%s", "conv2d_NCHWc.x86", [["TENSOR", [1, %d, %d, %d], "float32"], ["TENSOR", [%d, %d, 3, 3], '
                '"float32"], [1, 1], [1, 1, 1, 1], [1, 1], "NCHW", "NCHW", "float32"], {}], "config": {"index": %d, '
                '"code_hash": null, "entity": [["tile_ic", "sp", [-1, 8]], ["tile_oc", "sp", [-1, 32]], ["tile_ow", "sp", '
                '[-1, 8]], ["unroll_kw", "ot", false]]}, "result": [[9.19771318802088e-05], 0, 1.245175838470459, '
                '1610268027.5909865], "version": 0.2, "tvm_version": "0.8.dev0"}\n' % (TARGET, c, h, h, c, c, k % 1000))
    return write(path, size, "", record, gz=gz)


def autotvm_tasks(path: Path, size: int, gz: bool = False) -> int:
    """AutoTVM tasks printed as `Task(...)` reprs (tests/data/autotvm-tasks)."""
    def task(k):
        c, h = dims(k)
        args = (f"(('TENSOR', (1, {c}, {h}, {h}), 'float32'), ('TENSOR', ({c}, {c}, 3, 3), 'float32'), (1, 1), "
                "(1, 1, 1, 1), (1, 1), 'NCHW', 'NCHW', 'float32')")
        return f"Task(func_name=conv2d_NCHWc.x86, args={args}, kwargs={{}}, workload=('conv2d_NCHWc.x86', {args[1:-1]}))\n"
    return write(path, size, "Extracted tasks:\n", task, gz=gz)


def _key(k: int) -> str:
    c, h = dims(k)
    return f'["{k:032x}", [1, {h}, {h}, {c}], [3, 3, {c}, {c}], [1, {h}, {h}, {c}]]'


def ansor_log(path: Path, size: int, gz: bool = False) -> int:
    """An auto_scheduler log (shared/real/ansor-log): a workload key each."""
    def record(k):
        key = json.dumps(_key(k))
        return ('{"i": [[%s, "llvm -keys=cpu -mcpu=core-avx2", [8, 64, 64, 0, 0, 0, 0, 0], "", 2], [[], [["CI", 5], '
                '["SP", 3, 0, 1, [1, 1, 1], 1], ["SP", 3, 4, 56, [7, 2, 2], 1], ["SP", 3, 8, 56, [2, 7, 1], 1], '
                '["RE", 3, [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]], ["FU", 3, [0, 1, 2]], ["AN", 3, 0, 3], '
                '["PR", 3, 0, "auto_unroll_max_step$64"]]]], "r": [[0.000187058, 0.000187051], 0, 1.83804, '
                '1675066859], "v": "v0.6"}\n' % key)
    return write(path, size, "", record, gz=gz)


def _dag(k: int) -> str:
    c, h = dims(k)
    return (f"placeholder = PLACEHOLDER [1, {h}, {h}, {c}]\n"
            f"pad_temp(i0, i1, i2, i3) = tir.if_then_else(((((i1 >= 1) && (i1 < {h + 1})) && (i2 >= 1)) && "
            f"(i2 < {h + 1})), placeholder[i0, (i1 - 1), (i2 - 1), i3], 0f)\n"
            f"placeholder = PLACEHOLDER [3, 3, {c}, {c}]\n"
            "conv2d_nhwc(nn, yy, xx, ff) += (pad_temp[nn, (yy + ry), (xx + rx), rc]*placeholder[ry, rx, rc, ff])\n")


def ansor_tasks(path: Path, size: int, gz: bool = False) -> int:
    """auto_scheduler tasks printed with their compute DAGs (tests/data/ansor-tasks)."""
    def task(k):
        return f"========== Task {k}  (workload key: {_key(k)}) ==========\n{_dag(k)}\n"
    return write(path, size, "Extract tasks...\n", task, gz=gz)


def ansor_fallback(path: Path, size: int, gz: bool = False) -> int:
    """auto_scheduler's warnings of untuned kernels, with their DAGs (tests/data/ansor-fallback)."""
    def warning(k):
        c, h = dims(k)
        key = f'["{k:032x}", 1, {h}, {h}, {c}, 3, 3, {c}, {c}, 1, {h}, {h}, {c}]'
        return ("-----------------------------------\n"
                f"fused_nn.conv2d_add_nn.relu_{k}\n"
                f"Cannot find tuned schedules for target=llvm -keys=cpu -link-params=0 -mcpu=core-avx2, workload_key={key}. "
                "A fallback TOPI schedule is used, which may bring great performance regression or even compilation "
                f"failure. Compute DAG info:\n{_dag(k)}")
    return write(path, size, "Compile...\n", warning, gz=gz)


def ms_tuning_log(path: Path, size: int, gz: bool = False) -> int:
    """MetaSchedule's logs (tests/ingest/tasks/test_ms_tuning_log.py writes them by TVM's format
    strings): each task initialised, then 8 measured trials of it."""
    at = "2023-09-29 16:10:22 [INFO] [task_scheduler.cc:121] "

    def task(k):
        name = f"fused_conv2d_add_relu_{k}"
        lines = [f'{at}Initializing Task #{k}: "{name}"\n']
        lines += [f"{at}[Task #{k}: {name}] Trial #{t}: GFLOPs: {10 + t}.5000. Time: {100 + k % 997 + t}.2500 us. "
                  f"Best GFLOPs: {10 + t}.5000\n" for t in range(1, 9)]
        return "".join(lines)
    return write(path, size, "", task, gz=gz)


def relay(path: Path, size: int, gz: bool = False) -> int:
    """One Relay function of conv2d-add-relu blocks (shared/real/relay), each of its own
    channels: a workload each."""
    head = ("def @main(%data: Tensor[(1, 1, 56, 56), float32] /* ty=Tensor[(1, 1, 56, 56), float32] */) "
            "-> Tensor[(1, 1, 56, 56), float32] {\n  %0 = nn.relu(%data) /* ty=Tensor[(1, 1, 56, 56), float32] */;\n")

    def block(k):
        c, _ = dims(k)
        before, ty, i = dims(k - 1)[0] if k else 1, f"/* ty=Tensor[(1, {c}, 56, 56), float32] */", 3 * k
        return (f"  %{i + 1} = nn.conv2d(%{i}, meta[relay.Constant][{k}] /* ty=Tensor[({c}, {before}, 3, 3), float32] */, "
                f"padding=[1, 1, 1, 1], channels={c}, kernel_size=[3, 3]) {ty};\n"
                f"  %{i + 2} = add(%{i + 1}, meta[relay.Constant][{k}] /* ty=Tensor[({c}, 1, 1), float32] */) {ty};\n"
                f"  %{i + 3} = nn.relu(%{i + 2}) {ty};\n")
    return write(path, size, head, block, lambda n: f"  %{3 * n}\n}}\n", gz=gz)


def relax(path: Path, size: int, gz: bool = False) -> int:
    """A Relax module printed by TVMScript (tests/data/relax): one dataflow block of
    convolutions, each of an input of its own size (a reshape of the data)."""
    head = ('# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n'
            '    @R.function\n    def forward(x: R.Tensor((1, 1, 8, 8), dtype="float32"), w: R.Tensor((1, 1, 3, 3), '
            'dtype="float32")) -> R.Tensor((1, 1, 8, 8), dtype="float32"):\n'
            '        R.func_attr({"num_input": 1})\n        with R.dataflow():\n')

    def pair(k):
        h = k + 1
        ty = f'R.Tensor((1, 1, {h}, {h}), dtype="float32")'
        return (f"            lv{k}: {ty} = R.reshape(x, R.shape([1, 1, {h}, {h}]))\n"
                f"            conv{k}: {ty} = R.nn.conv2d(lv{k}, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], "
                'groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)\n')
    return write(path, size, head, pair, lambda n: f"            R.output(conv{n - 1})\n        return conv{n - 1}\n", gz=gz)


REAL = Path(os.environ.get("HOTDB_REAL", Path(__file__).resolve().parents[2] / "shared" / "real"))
# a record's result [costs, error_no, all_cost, timestamp], AutoTVM's ("result") and auto_scheduler's ("r")
_TIMESTAMP = re.compile(r'"(?:result|r)": \[\[[^\]]*\], -?\d+, [0-9.eE+-]+, ([0-9.eE+-]+)\]')


def model_log(path: Path, size: int, template: str, gz: bool = False) -> int:
    """The real log `template` (under REAL) repeated to `size`, each line's timestamp its
    own (the first's plus the line's number), so that no two lines are alike."""
    if not (REAL / template).is_file():
        sys.exit(f"{REAL / template} not found: set HOTDB_REAL to the shared/real folder")
    parts = []
    for line in (REAL / template).read_text().splitlines():
        if line.startswith("{") and (m := _TIMESTAMP.search(line)):
            parts.append((line[:m.start(1)], line[m.end(1):] + "\n"))
    start = 1.6e9

    def record(k):
        before, after = parts[k % len(parts)]
        return f"{before}{start + k:.1f}{after}"
    return write(path, size, "", record, gz=gz)


MODEL_LOGS = {"autotvm-model-log": "autotvm-log/cutlass_eval_effnetv2_autotvm_log.txt",  # 42 workloads
              "ansor-model-log": "ansor-log/cutlass_eval_bert_ansor.log"}  # 21 workloads


def ms_database(folder: Path, size: int, gz: bool = False) -> int:
    """A MetaSchedule JSON database folder (tests/data/ms-database): workloads, each the
    fixture's IRModule with its first buffer's first dim changed, and 8 records of each."""
    folder.mkdir(parents=True)
    fixture = Path(__file__).resolve().parent.parent / "tests/data/ms-database/small_convnet"
    shash, encoded = json.loads((fixture / "database_workload.json").read_text().splitlines()[0])
    raw = base64.b64decode(encoded)
    length, graph = struct.unpack("<Q", raw[:8])[0], None
    graph = json.loads(raw[8:8 + length])
    value = _first_dim(graph["nodes"])
    record = json.loads((fixture / "database_tuning_record.json").read_text().splitlines()[0])

    def workload(k):
        graph["nodes"][value]["data"] = 1 + k % 4096  # the int node that first dim holds
        text = json.dumps(graph).encode()
        return json.dumps([str(int(shash) + k), base64.b64encode(struct.pack("<Q", len(text)) + text).decode()]) + "\n"
    count = write(folder / "database_workload.json", size, "", workload)

    def tuning(k):
        record[0], record[1][1] = k // 8 % count, [1e-4 * (1 + k % 997)]
        return json.dumps(record, separators=(",", ":")) + "\n"
    write(folder / "database_tuning_record.json", size, "", tuning)
    return count


def _first_dim(nodes: list[dict]) -> int:
    """The index of the `int` node holding the first dim of the PrimFunc's first buffer."""
    buffer = next(n for n in nodes if n["type"].endswith("BufferType"))["data"]
    first = nodes[nodes[buffer["shape"]]["data"][0]]
    return first["data"]["value"]


MAKERS = {"debug-table": debug_table, "debug-log": debug_log, "debug-dump": debug_dump, "graph-json": graph_json,
          "report-csv": report_csv, "report-json": report_json, "report-table": report_table, "vm-stat": vm_stat,
          "kernel-table": kernel_table, "autotvm-log": autotvm_log, "autotvm-tasks": autotvm_tasks,
          "ansor-log": ansor_log, "ansor-tasks": ansor_tasks, "ansor-fallback": ansor_fallback,
          "ms-database": ms_database, "ms-tuning-log": ms_tuning_log, "relay": relay, "relax": relax}


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in {**MAKERS, **MODEL_LOGS}:
        sys.exit(__doc__ + "\nNAME: " + ", ".join([*MAKERS, *MODEL_LOGS]))
    name, path, size, gz = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), "--gzip" in sys.argv[4:]
    print(model_log(path, size, MODEL_LOGS[name], gz) if name in MODEL_LOGS else MAKERS[name](path, size, gz))
