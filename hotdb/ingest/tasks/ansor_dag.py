"""What an auto_scheduler task's compute DAG says of its workload (`print(task.compute_dag)`).

The workload key gives the argument shapes (inputs, then the output); the DAG's stages say
which computation reads them and how. The anchor is the first reduction stage; its data
access gives the layout (the spatial indices are the ones a reduction variable is added
to: `PaddedInput[b, ((i*2) + di), ((j*2) + dj), c]` is NHWC, stride 2) and the strides and
dilations (the factors of the output and reduction variables); padding is what makes the
output size come out. Each family is read only where the DAG determines it:

    convolution, depthwise    conv2d_nhwc(...) += (pad_temp[...]*placeholder[...]) ;
                              DepthwiseConv2d(b, i, j, c) += (PaddedInput[...]*placeholder[di, dj, c, 0])
    winograd                  its kernel is pre-transformed, (alpha, alpha, CO, CI) in the key: the
                              logical (CO, CI, r, r) has r = alpha - m + 1, m the output tile (the
                              `*m) + eps` of input_tile); stride 1, as winograd is only used for
    dense, batch_matmul       T_matmul_NT, T_batch_matmul_NT (keys.py's canonical forms)
    pooling                   tensor(...) max= / += pad_temp[ax0, ((ax1*s) + rv0), ...]: a global pool
                              (a 1x1 output, the window the whole input) always; another where its
                              window follows from the sizes (stride 1); `pool=KxK` in the key
    softmax                   T_softmax_maxelem(i0) max= placeholder[i0, k]: `axis=` the reduced one

The printed DAG does not show data types: these workloads are float32, as in the tutorials
that print such lists.
"""

from __future__ import annotations

import re

from hotdb.workload import Workload, batch_matmul_workload, conv_workload, dense_workload
from hotdb.workload.layouts import unpack

STAGE = re.compile(r"^\s*(\w+)\(([^)]*)\)\s*((?:\+|max|min)?=)")
PLACEHOLDER = re.compile(r"^\s*\w+\s*=\s*PLACEHOLDER\s*\[")
# Anchor families by reduction stage name, most specific first.
_STAGE_FAMILIES = [("depthwise", "depthwise_conv2d"), ("conv2d_transpose", "conv2d_transpose"),
                   ("winograd", "conv2d"), ("conv2d", "conv2d"), ("conv3d", "conv3d"), ("conv1d", "conv1d"),
                   ("batch_matmul", "batch_matmul"), ("dense", "dense"), ("matmul", "dense"), ("softmax", "softmax"),
                   ("pool", "pool")]
_ACCESS = re.compile(r"(\w+)\[([^\[\]]*)\]")
_TERM = re.compile(r"^\(?(\w+)(?:\*(\d+))?\)?$")
_PAD_BEFORE = re.compile(r"\((\w+) >= (\d+)\)")


def family_of(dag: list[str]) -> tuple[str | None, str | None]:
    """The anchor's family and variant (winograd), from the stage names and what the first
    reduction reads."""
    stages = [(m.group(1), m.group(3), line) for line in dag if (m := STAGE.match(line))]
    if any("winograd" in name for name, _, _ in stages):
        return "conv2d", "winograd"
    anchor = next(((name, op, line) for name, op, line in stages if op != "="), None)
    if anchor is None:
        return None, None
    family = next((f for token, f in _STAGE_FAMILIES if token in anchor[0].lower()), None)
    if family is None and _pooled(anchor[2]):
        family = "pool"
    if family == "pool":
        family = "max_pool2d" if anchor[1] == "max=" else "avg_pool2d"
    return family, None


def workload(family: str | None, variant: str | None, shapes: list[list[int]], dag: list[str]) -> Workload | None:
    """The canonical workload of the task, or None where the DAG does not determine it.
    Raises what the workload functions raise where the shapes contradict the DAG."""
    stages = [(m.group(1), m.group(3), line) for line in dag if (m := STAGE.match(line))]
    anchor = next(((name, line) for name, op, line in stages if op != "="), None)
    placeholders = [[int(d) for d in re.findall(r"\d+", line.split("[", 1)[1])] for line in dag if PLACEHOLDER.match(line)]
    if variant == "winograd":
        return _winograd(shapes, dag)
    if anchor is None:
        return None
    if family in ("conv2d", "depthwise_conv2d") and len(placeholders) >= 2:
        return _convolution(family, anchor[0], anchor[1], placeholders, shapes[-1])
    if family == "dense" and len(shapes) >= 3 and len(shapes[0]) == 2 and len(shapes[1]) == 2:
        return dense_workload(shapes[0], shapes[1], "float32")
    if family == "batch_matmul" and len(shapes) >= 3 and len(shapes[0]) == 3 and len(shapes[1]) == 3:
        return batch_matmul_workload(shapes[0], shapes[1], "float32")
    if family in ("max_pool2d", "avg_pool2d") and len(shapes) >= 2:
        return _pool(family, anchor[1], shapes[0], shapes[-1], dag)
    if family == "softmax" and shapes:
        return _softmax(anchor[1], shapes[0])
    return None


def _indices(text: str) -> list[str]:
    """An access's index expressions, split at the commas outside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out


def _terms(index: str) -> list[tuple[str, int]]:
    """`((i*2) + (di*3))` as [("i", 2), ("di", 3)]; an index that is not such a sum: []."""
    body = index.strip()
    while body.startswith("(") and body.endswith(")") and _balanced(body[1:-1]):
        body = body[1:-1].strip()
    out = []
    for part in _split_plus(body):
        m = _TERM.match(part.strip())
        if not m:
            return []
        out.append((m.group(1), int(m.group(2) or 1)))
    return out


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _split_plus(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "+" and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _reads(line: str) -> list[list[str]]:
    """The index expressions of each tensor the stage's right side reads."""
    rhs = STAGE.sub("", line, count=1)
    return [_indices(m.group(2)) for m in _ACCESS.finditer(rhs)]


def _windows(access: list[str]) -> dict[int, tuple[int, int]]:
    """The positions of an access that slide a window: (stride, dilation) of each."""
    out = {}
    for position, index in enumerate(access):
        terms = _terms(index)
        if len(terms) == 2:
            out[position] = (terms[0][1], terms[1][1])
    return out


def _pooled(line: str) -> bool:
    """A reduction over a window of one tensor (`tensor(...) max= pad_temp[ax0, ((ax1*2) + rv0), ...]`)."""
    reads = _reads(line)
    return len(reads) == 1 and len(_windows(reads[0])) == 2


def _layout(access: list[str]) -> str | None:
    """NHWC or NCHW, by where the window slides in a 4-D access."""
    spatial = sorted(_windows(access))
    return {(1, 2): "NHWC", (2, 3): "NCHW"}.get(tuple(spatial)) if len(access) == 4 else None


def _padding(x: int, k: int, o: int, s: int, d: int) -> int | None:
    fits = [p for p in range(0, d * (k - 1) + 1) if (x + 2 * p - d * (k - 1) - 1) // s + 1 == o]
    return fits[0] if fits else None


def _convolution(family: str, stage: str, line: str, placeholders: list[list[int]], out: list[int]):
    reads = _reads(line)
    data, kernel = placeholders[0], placeholders[1]
    layout = (_layout(reads[0]) if reads else None) or ("NHWC" if stage.lower().endswith("nhwc") else "NCHW")
    windows = _windows(reads[0]) if reads else {}
    strides = [s for _, (s, _) in sorted(windows.items())] or [1, 1]
    dilation = [d for _, (_, d) in sorted(windows.items())] or [1, 1]
    if layout == "NHWC":
        data_nchw, out_nchw = unpack(data, "NHWC", "NCHW"), unpack(out, "NHWC", "NCHW")
        # depthwise NHWC kernels are (KH, KW, C, M); others HWIO
        weight = (kernel[2] * kernel[3], 1, kernel[0], kernel[1]) if family == "depthwise_conv2d" else \
            unpack(kernel, "HWIO", "OIHW")
    else:
        data_nchw, out_nchw = tuple(data), tuple(out)
        weight = (kernel[0] * kernel[1], 1, kernel[2], kernel[3]) if family == "depthwise_conv2d" else tuple(kernel)
    groups = data_nchw[1] if family == "depthwise_conv2d" else max(data_nchw[1] // weight[1], 1)
    padding = [_padding(data_nchw[2 + a], weight[2 + a], out_nchw[2 + a], strides[a], dilation[a]) for a in range(2)]
    if None in padding:
        return None
    return conv_workload(data_nchw, weight, strides, padding, dilation, groups, "float32")


def _winograd(shapes: list[list[int]], dag: list[str]):
    """The convolution a winograd task computes: its kernel back to (CO, CI, r, r)."""
    if len(shapes) < 3 or len(shapes[1]) != 4 or shapes[1][0] != shapes[1][1]:
        return None
    tile = next((int(m.group(1)) for line in dag if line.startswith("input_tile")
                 and (m := re.search(r"\*(\d+)\) \+ eps\)", line))), None)
    output = next((STAGE.match(line).group(2) for line in dag if STAGE.match(line)
                   and "winograd" in STAGE.match(line).group(1) and STAGE.match(line).group(3) == "="), None)
    bgemm = next((_reads(line) for line in dag if line.startswith("bgemm(")), None)
    if tile is None or output is None or not bgemm or len(bgemm[-1]) != 4:
        return None
    alpha, _, first, second = shapes[1]
    r = alpha - tile + 1
    co, ci = (first, second) if bgemm[-1][2].startswith("co") else (second, first)
    axes = [a.strip() for a in output.split(",")]
    layout = "NHWC" if axes[-1].startswith("c") else "NCHW"
    data, out = (unpack(shapes[0], layout, "NCHW"), unpack(shapes[-1], layout, "NCHW"))
    padding = [_padding(data[2 + a], r, out[2 + a], 1, 1) for a in range(2)]
    if None in padding or data[1] != ci:
        return None
    return conv_workload(data, (co, ci, r, r), (1, 1), padding, (1, 1), 1, "float32")


def _pool(family: str, line: str, data: list[int], out: list[int], dag: list[str]):
    """A global pool always; another only where its window follows from the sizes (stride 1)."""
    reads = _reads(line)
    layout = _layout(reads[0]) if reads else None
    if layout is None or len(data) != 4 or len(out) != 4:
        return None
    data_nchw, out_nchw = unpack(data, layout, "NCHW"), unpack(out, layout, "NCHW")
    strides = [s for _, (s, _) in sorted(_windows(reads[0]).items())]
    pads = [int(m.group(2)) for text in dag if "tir.if_then_else" in text for m in _PAD_BEFORE.finditer(text)][:2]
    pad = max(pads) if pads else 0
    if out_nchw[2:] == (1, 1) and list(strides) == list(data_nchw[2:]) and not pad:
        window = data_nchw[2:]
        family = family.replace("max_", "global_max_").replace("avg_", "global_avg_")
        return Workload(family, "float32", data_nchw, (), out_nchw, extra=(("pool", f"{window[0]}x{window[1]}"),))
    if strides != [1, 1]:
        return None  # several windows give the same output size at a stride above 1
    window = [x + 2 * pad - o + 1 for x, o in zip(data_nchw[2:], out_nchw[2:])]
    return Workload(family, "float32", data_nchw, (), out_nchw, (1, 1), (pad,) * 4, (1, 1), 1,
                    extra=(("pool", f"{window[0]}x{window[1]}"),))


def _softmax(line: str, data: list[int]):
    reads = _reads(line)
    stage = STAGE.match(line)
    outer = [a.strip() for a in stage.group(2).split(",")] if stage else []
    if not reads:
        return None
    reduced = [k for k, index in enumerate(reads[0]) if index.strip() not in outer]
    if len(reduced) != 1:
        return None
    return Workload("softmax", "float32", tuple(data), (), tuple(data), extra=(("axis", reduced[0]),))
