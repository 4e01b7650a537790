"""An auto_scheduler task list of our own making, in the form its tutorials print it
(`print("========== Task %d  (workload key: %s) ==========" % (idx, task.workload_key))`,
then `print(task.compute_dag)`), with the stages TOPI's computes print as, one task of each
kind the DAG reader takes apart (hotdb/ingest/tasks/ansor_dag.py): NHWC depthwise
convolutions at strides 1 and 2 and an NCHW one, winograd convolutions with output tiles 2
and 4 (alpha 4 and 6), a batch_matmul, a global average pool, max pools at strides 1 (its
window follows from the sizes) and 2 (it does not: no workload), a softmax. The stage lines
follow the real printouts of TVM 0.10's tutorials (hyperai/tvm-cn); hashes are made up.

    python tests/data/ansor-tasks/make_fixtures.py [OUT_FOLDER]   # default: this folder
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _key(kind: str, *shapes: list[int]) -> str:
    digest = hashlib.md5(f"{kind}{shapes}".encode()).hexdigest()
    return "[" + ", ".join([f'"{digest}"'] + [str(list(s)) for s in shapes]) + "]"


def _pad(name: str, n: int, h: int, axes: str = "i") -> str:
    a = [f"{axes}{k}" for k in range(4)]
    return (f"{name}({', '.join(a)}) = tir.if_then_else((((({a[1]} >= 1) && ({a[1]} < {h + 1})) && ({a[2]} >= 1)) && "
            f"({a[2]} < {h + 1})), placeholder[{a[0]}, ({a[1]} - 1), ({a[2]} - 1), {a[3]}], 0f)")


def depthwise_nhwc(size: int, channels: int, stride: int) -> list[str]:
    out = size // stride
    access = "(i + di), (j + dj)" if stride == 1 else f"((i*{stride}) + di), ((j*{stride}) + dj)"
    return [_key("dw", [1, size, size, channels], [3, 3, channels, 1], [1, out, out, channels]),
            f"placeholder = PLACEHOLDER [1, {size}, {size}, {channels}]", _pad("PaddedInput", 1, size),
            f"placeholder = PLACEHOLDER [3, 3, {channels}, 1]",
            f"DepthwiseConv2d(b, i, j, c) += (PaddedInput[b, {access}, c]*placeholder[di, dj, c, 0])"]


def depthwise_nchw(size: int, channels: int) -> list[str]:
    return [_key("dwc", [1, channels, size, size], [channels, 1, 3, 3], [1, channels, size, size]),
            f"placeholder = PLACEHOLDER [1, {channels}, {size}, {size}]",
            f"PaddedInput(i0, i1, i2, i3) = tir.if_then_else(((((i2 >= 1) && (i2 < {size + 1})) && (i3 >= 1)) && "
            f"(i3 < {size + 1})), placeholder[i0, i1, (i2 - 1), (i3 - 1)], 0f)",
            f"placeholder = PLACEHOLDER [{channels}, 1, 3, 3]",
            "DepthwiseConv2d(b, c, i, j) += (PaddedInput[b, c, (i + di), (j + dj)]*placeholder[c, 0, di, dj])"]


def winograd_nhwc(size: int, channels: int, tile: int) -> list[str]:
    alpha, tiles = tile + 2, (size + tile - 1) // tile
    return [_key("wino", [1, size, size, channels], [alpha, alpha, channels, channels], [1, size, size, channels]),
            f"placeholder = PLACEHOLDER [1, {size}, {size}, {channels}]", _pad("data_pad", 1, size),
            f"input_tile(eps, nu, p, ci) = data_pad[floordiv(p, {tiles * tiles}), ((floormod(floordiv(p, {tiles}), "
            f"{tiles})*{tile}) + eps), ((floormod(p, {tiles})*{tile}) + nu), ci]",
            f"B(i, j) = select(((floormod(i, {alpha}) == {alpha - 1}) && (floormod(j, {alpha}) == {alpha - 1})), 1f, 0f)",
            "data_pack(eps, nu, p, ci) += ((input_tile[r_a, r_b, p, ci]*B[r_a, eps])*B[r_b, nu])",
            f"placeholder = PLACEHOLDER [{alpha}, {alpha}, {channels}, {channels}]",
            "bgemm(eps, nu, p, co) += (data_pack[eps, nu, p, ci]*placeholder[eps, nu, co, ci])",
            f"A(i, j) = select(((floormod(i, {alpha}) == {alpha - 1}) && (floormod(j, {tile}) == {tile - 1})), 1f, 0f)",
            "inverse(vh, vw, p, co) += ((bgemm[r_a, r_b, p, co]*A[r_a, vh])*A[r_b, vw])",
            f"conv2d_winograd(n, h, w, co) = inverse[floormod(h, {tile}), floormod(w, {tile}), ((((n*{tiles})*{tiles}) + "
            f"(floordiv(h, {tile})*{tiles})) + floordiv(w, {tile})), co]"]


def batch_matmul(batch: int, m: int, n: int, k: int) -> list[str]:
    return [_key("bmm", [batch, m, k], [batch, n, k], [batch, m, n]),
            f"placeholder = PLACEHOLDER [{batch}, {m}, {k}]", f"placeholder = PLACEHOLDER [{batch}, {n}, {k}]",
            "T_batch_matmul_NT(b, i, j) += (placeholder[b, i, k]*placeholder[b, j, k])"]


def global_pool(size: int, channels: int) -> list[str]:
    return [_key("gap", [1, size, size, channels], [1, 1, 1, channels]),
            f"placeholder = PLACEHOLDER [1, {size}, {size}, {channels}]",
            f"tensor(ax0, ax1, ax2, ax3) += placeholder[ax0, ((ax1*{size}) + rv0), ((ax2*{size}) + rv1), ax3]",
            f"tensor(ax0, ax1, ax2, ax3) = (tensor[ax0, ax1, ax2, ax3]/{float(size * size)}f)"]


def max_pool(size: int, channels: int, stride: int) -> list[str]:
    out = size // stride
    access = "(ax1 + rv0), (ax2 + rv1)" if stride == 1 else f"((ax1*{stride}) + rv0), ((ax2*{stride}) + rv1)"
    return [_key(f"mp{stride}", [1, size, size, channels], [1, out, out, channels]),
            f"placeholder = PLACEHOLDER [1, {size}, {size}, {channels}]",
            _pad("pad_temp", 1, size, "ax").replace(", 0f)", ", -3.40282e+38f)"),
            f"tensor(ax0, ax1, ax2, ax3) max= pad_temp[ax0, {access}, ax3]"]


def softmax(rows: int, classes: int) -> list[str]:
    return [_key("softmax", [rows, classes], [rows, classes]), f"placeholder = PLACEHOLDER [{rows}, {classes}]",
            "T_softmax_maxelem(i0) max= placeholder[i0, k]",
            "T_softmax_exp(i0, i1) = tir.exp((placeholder[i0, i1] - T_softmax_maxelem[i0]))",
            "T_softmax_expsum(i0) += T_softmax_exp[i0, k]",
            "T_softmax_norm(i0, i1) = (T_softmax_exp[i0, i1]/T_softmax_expsum[i0])"]


TASKS = [depthwise_nhwc(56, 128, 1), depthwise_nhwc(56, 128, 2), depthwise_nchw(28, 64), winograd_nhwc(28, 128, 2),
         winograd_nhwc(56, 64, 4), batch_matmul(12, 128, 128, 64), global_pool(7, 1024), max_pool(56, 64, 1),
         max_pool(112, 64, 2), softmax(1, 1000)]


def task_list() -> str:
    lines = ["Extract tasks..."]
    for i, (key, *dag) in enumerate(TASKS):
        lines += [f"========== Task {i}  (workload key: {key}) ==========", *dag, ""]
    return "\n".join(lines)


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "every_kind_nhwc.txt").write_text(task_list())


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
