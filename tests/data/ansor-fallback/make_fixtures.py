"""Fallback warnings of our own making, for the bundled VGG-16 build (hotdb/examples/vgg16/),
written by the format strings of the TVM code that logs them:

* auto_scheduler (python/tvm/auto_scheduler/dispatcher.py, FallbackContext.query): a rule,
  from TVM 0.8 the function name, then "Cannot find tuned schedules for target=%s,
  workload_key=%s. A fallback TOPI schedule is used, which may bring great performance
  regression or even compilation failure. Compute DAG info:\\n%s"; the key is a hash alone
  (TVM 0.7) or the hash and the arguments' dims flattened (0.8+); hashes are made up here.
* AutoTVM (python/tvm/autotvm/task/dispatcher.py, FallbackContext._query_inside): "Cannot
  find config for target=%s, workload=%s. A fallback configuration is used, which may bring
  great performance regression." with the workload tuple as Python prints it: TVM >= 0.7
  ('conv2d_NCHWc.x86', ('TENSOR', shape, dtype), ...), 0.6 ('conv2d', (dims..., dtype), ...,
  strides, padding, dilation, layout, out_dtype) and 0.5 (no dilation).

    python tests/data/ansor-fallback/make_fixtures.py [OUT_FOLDER]   # default: made/ beside this file
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
from pathlib import Path

TASKS = Path(__file__).resolve().parents[3] / "hotdb" / "examples" / "vgg16" / "vgg16.autotvm_tasks.txt"
TARGET = "llvm -keys=cpu -link-params=0 -mcpu=core-avx2"
RULE = "-" * 35
ANSOR_TAIL = (". A fallback TOPI schedule is used, which may bring great performance regression or even "
              "compilation failure. Compute DAG info:")
AUTOTVM_TAIL = ". A fallback configuration is used, which may bring great performance regression."


def workloads() -> list[tuple]:
    """The example's AutoTVM workloads (the x86 build dispatches the `dense_pack` ones)."""
    found = [ast.literal_eval(m.group(1)) for line in TASKS.read_text().splitlines()
             if (m := re.search(r"workload=(\(.*\))\)$", line))]
    return [w for w in found if w[0] != "dense_nopack.x86"]


def key_hash(name: str) -> str:
    return hashlib.md5(name.encode()).hexdigest()


def conv_dag(c: int, o: int, hw: int) -> list[str]:
    """TE's conv2d_nchw with bias and relu, 3x3, padding 1, as ComputeDAG prints it."""
    return [f"placeholder = PLACEHOLDER [1, {c}, {hw}, {hw}]",
            f"pad_temp(i0, i1, i2, i3) = tir.if_then_else(((((i2 >= 1) && (i2 < {hw + 1})) && (i3 >= 1)) && (i3 < {hw + 1})), "
            "placeholder[i0, i1, (i2 - 1), (i3 - 1)], 0f)",
            f"placeholder = PLACEHOLDER [{o}, {c}, 3, 3]",
            "conv2d_nchw(nn, ff, yy, xx) += (pad_temp[nn, rc, (yy + ry), (xx + rx)]*placeholder[ff, rc, ry, rx])",
            f"placeholder = PLACEHOLDER [1, {o}, 1, 1]",
            "T_add(ax0, ax1, ax2, ax3) = (conv2d_nchw[ax0, ax1, ax2, ax3] + placeholder[ax0, ax1, 0, 0])",
            "T_relu(ax0, ax1, ax2, ax3) = max(T_add[ax0, ax1, ax2, ax3], 0f)"]


def dense_dag(n: int, k: int) -> list[str]:
    return [f"placeholder = PLACEHOLDER [1, {k}]", f"placeholder = PLACEHOLDER [{n}, {k}]",
            "T_dense(i, j) += (placeholder[i, k]*placeholder[j, k])"]


def ansor(key: list, dag: list[str], function: str | None = None) -> list[str]:
    warning = f"Cannot find tuned schedules for target={TARGET}, workload_key={_json(key)}{ANSOR_TAIL}"
    return [RULE] + ([function] if function else []) + [warning] + dag


def _json(key: list) -> str:
    return "[" + ", ".join(f'"{x}"' if isinstance(x, str) else str(x) for x in key) + "]"


CONV1_2 = [key_hash("vgg16 conv1_2"), 1, 64, 224, 224, 64, 64, 3, 3, 1, 64, 1, 1, 1, 64, 224, 224]
FC8 = [key_hash("vgg16 fc8")]
FC7 = [key_hash("vgg16 fc7"), 1, 4096, 4096, 4096, 1, 4096]


def autotvm(workload: tuple) -> str:
    return f"WARNING:autotvm:Cannot find config for target={TARGET}, workload={workload}{AUTOTVM_TAIL}"


def tvm06(workload: tuple, dilation: bool = True) -> tuple:
    """The same convolution as TVM 0.6 (or 0.5, without dilation) named it: tensors flattened."""
    _, data, weight, strides, padding, dil, layout, _, dtype = workload
    flat = (tuple(data[1]) + (data[2],), tuple(weight[1]) + (weight[2],))
    return ("conv2d", *flat, strides, padding[:2]) + ((dil,) if dilation else ()) + (layout, dtype)


def curly(text: str) -> str:
    """A forum's typographer: 'x' becomes ‘x’, "x" becomes “x”."""
    text = re.sub(r"'([^']*)'", "\u2018\\1\u2019", text)
    return re.sub(r'"([^"]*)"', "\u201c\\1\u201d", text)


def files() -> dict[str, list[str]]:
    convs = [w for w in workloads() if w[0].startswith("conv2d")]
    return {
        "vgg16_ansor_tvm08.log": ["Compile..."] + ansor(CONV1_2, conv_dag(64, 64, 224), "fused_nn.conv2d_add_nn.relu")
        + ansor(FC7, dense_dag(4096, 4096), "fused_nn.dense_add_nn.relu") + ["Evaluate inference time cost..."],
        "vgg16_ansor_tvm07_hash_only.log": ["Compile..."] + ansor(FC8, dense_dag(1000, 4096)),
        "vgg16_ansor_run_together.txt": [
            "Building VGG-16 without a log printed this:", "",
            curly(" ".join(ansor(CONV1_2, [])[1:] + [ansor(FC7, [])[1]]))] + dense_dag(4096, 4096) + ["", "Why is it slow?"],
        "vgg16_autotvm_tvm07.log": ["Compiling VGG-16..."] + [autotvm(w) for w in workloads()] + ["Done."],
        "vgg16_autotvm_tvm06_run_together.txt": [
            "After tuning I still get these warnings:", "",
            curly(" ".join(autotvm(tvm06(w)) for w in convs)), "", "What am I missing?"],
        "vgg16_autotvm_tvm05.log": [autotvm(tvm06(w, dilation=False)) for w in convs[:2]],
    }


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in files().items():
        (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "made")
