"""Workloads of AutoTVM tasks, from their serialised args (`[["TENSOR", [dims], dtype],
strides, padding, ...]`) as Task reprs and tuning logs print them.

A task whose template packs its tensors prints them packed: these are unpacked by the rules
the matching ladder uses for a kernel's packed shapes (keys.py: `logical_operands`), so that
a task and the kernel it tunes name one workload:

    conv2d_NCHWc.x86 (and _int8)  data (N, C/c, H, W, c) NCHW{c}c; kernel (O/o, I/i, KH, KW, i, o)
                                  OIHW{i}i{o}o, the int8 one (..., i/4, o, 4) OIHW{i}i{o}o4i
    depthwise_conv2d_NCHWc.x86    data as above; kernel (O/o, 1, KH, KW, 1, o)
    dense_pack.x86                weight (N/n, K, n), NC{n}n as AlterOpLayout packs it
    dense_vnni.x86, dense_amx_int8 weight (N/16, K/4, 16, 4), NC16n4c
    VTA's *_packed.vta            data NCHW{n}n{c}c and kernels OIHW{o}o{i}i, 6-D; dense NC{n}n{c}c, 4-D
    bitserial_conv2d_*, bitserial_dense   logical tensors; the activation and weight bits and
                                  `unipolar` are part of the workload (`bits=AxW unipolar=U`)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hotdb.workload.families import task_template
from hotdb.workload.keys import (
    Shape,
    Workload,
    WorkloadError,
    batch_matmul_workload,
    bitserial_workload,
    canonical_act,
    conv_workload,
    data_layout_of,
    dense_weight,
    dense_workload,
    kernel_layout_of,
)
from hotdb.workload.layouts import LayoutError, unpack


def _tensor(arg) -> tuple[Shape, str] | None:
    if (isinstance(arg, (list, tuple)) and len(arg) >= 3 and arg[0] == "TENSOR" and isinstance(arg[1], (list, tuple))
            and all(isinstance(d, int) and not isinstance(d, bool) for d in arg[1])):
        return tuple(arg[1]), str(arg[2])
    return None


def from_autotvm_task(task_name: str, args: Sequence) -> Workload | None:
    """The workload of an AutoTVM task from its serialised args, or None when hotdb has no
    canonical form for the template. Raises WorkloadError when args contradict it."""
    template = task_template(task_name)
    if template is None:
        return None
    tensors = [_tensor(a) for a in args]
    if len(tensors) < 2 or tensors[0] is None or tensors[1] is None:
        raise WorkloadError(f"task {task_name}: expected two tensor arguments first, got {list(args)[:2]}")
    (data, dtype), (weight, _) = tensors[0], tensors[1]
    data, weight = unpacked(template.family, data, weight, args)
    family = template.family
    try:
        if family in ("dense", "matmul"):
            workload = dense_workload(data, weight, dtype)
            return _bitserial(workload, args, 2) if template.variant == "bitserial" else workload
        if family == "batch_matmul":
            # Tasks of all eras compute x (B, M, K) times y (B, N, K) unless told otherwise.
            ta = bool(args[4]) if len(args) > 4 else False
            tb = bool(args[5]) if len(args) > 5 else True
            return batch_matmul_workload(data, weight, dtype, ta, tb)
        if len(args) < 4:
            raise WorkloadError(f"task {task_name}: the printout gives the tensors only, not the strides and padding")
        if family.endswith("_transpose"):
            strides, padding = args[2], args[3]
            output_padding = next((a for a in args[4:] if isinstance(a, list) and a and all(isinstance(x, int) for x in a)), None)
            if output_padding is None and len(args[1]) > 3 and isinstance(args[1][3], list):
                output_padding = args[1][3]  # tophub cuda_v0.10 folds it into the kernel tensor
            return conv_workload(unpack(data, template.data_layout, "NC" + template.data_layout[2:]),
                                 weight, strides, padding, None, 1, dtype, transpose=True,
                                 output_padding=output_padding)
        strides, padding, dilation = args[2], args[3], args[4] if len(args) > 4 else None
        if isinstance(dilation, str) or template.variant == "bitserial":
            dilation = None  # VTA's (data, kernel, strides, padding, layout, ...); bitserial's bits
        groups = 1
        if template.variant in ("group", "group_packed") and len(args) > 5 and isinstance(args[5], int):
            groups = args[5]
        data = unpack(data, template.data_layout, canonical_act(template.data_layout))
        kernel_target = "OI" + "".join(ch for ch in template.kernel_layout if ch not in "OI")
        if family == "depthwise_conv2d":
            if template.data_layout == "NHWC":
                kh, kw, c, m = weight  # HWOI in TOPI's NHWC depthwise: (KH, KW, C, multiplier)
            else:
                c, m, kh, kw = weight  # (in_channel, channel_multiplier, KH, KW)
            weight = (c * m, 1, kh, kw)
            groups = data[1]
        else:
            weight = unpack(weight, template.kernel_layout, kernel_target)
        if data[1] != weight[1] * groups and family == "conv2d" and weight[1]:
            groups = data[1] // weight[1]
        workload = conv_workload(data, weight, strides, padding, dilation, groups, dtype)
        return _bitserial(workload, args, 4) if template.variant == "bitserial" else workload
    except LayoutError as exc:
        raise WorkloadError(f"task {task_name}: {exc}") from exc


def autotvm_operands(task_name: str, args: Sequence) -> tuple[Shape, Shape] | None:
    """Logical (data, weight) of a task whose printout gives its tensors only (a user's
    own loop printing `task.args[0]` and `task.args[1]`): the workload then comes from
    the IR call with these operands (queries/model_tasks.sql)."""
    template = task_template(task_name)
    tensors = [_tensor(a) for a in args[:2]]
    if template is None or len(tensors) < 2 or None in tensors:
        return None
    data, weight = unpacked(template.family, tensors[0][0], tensors[1][0], args)
    try:
        if template.family in ("conv2d", "depthwise_conv2d", "conv1d", "conv3d"):
            data = unpack(data, template.data_layout, canonical_act(template.data_layout))
            if template.family == "conv2d":
                weight = unpack(weight, template.kernel_layout, "OI" + "".join(ch for ch in template.kernel_layout if ch not in "OI"))
    except LayoutError:
        return None
    return tuple(data), tuple(weight)


def unpacked(family: str, data: Shape, weight: Shape, args: Sequence) -> tuple[Shape, Shape]:
    """A task's packed tensors as logical ones (the module's docstring lists the layouts);
    other tensors are returned unchanged."""
    try:
        if family in ("conv2d", "depthwise_conv2d", "conv2d_transpose") and len(data) == 6:  # VTA
            layout = next((a for a in args if isinstance(a, str) and re.fullmatch(r"NCHW\d+n\d+c", a)), None)
            data = unpack(data, layout or f"NCHW{data[4]}n{data[5]}c", "NCHW")
            if len(weight) == 6:
                weight = unpack(weight, f"OIHW{weight[4]}o{weight[5]}i", "OIHW")
                if family == "conv2d_transpose":  # TOPI's transposed kernels are IOHW
                    weight = (weight[1], weight[0], *weight[2:])
        elif family in ("conv2d", "depthwise_conv2d") and len(data) == 5:  # x86's NCHW{c}c
            layout = next((a for a in args if isinstance(a, str) and re.fullmatch(r"NCHW\d+c", a)), None)
            data = unpack(data, data_layout_of(data, layout), "NCHW")
            if len(weight) in (6, 7):
                weight = unpack(weight, kernel_layout_of(weight, None), "OIHW")
        elif family == "dense" and len(data) == 4 and len(weight) == 4:  # VTA
            data = unpack(data, f"NC{data[2]}n{data[3]}c", "NC")
            weight = unpack(weight, f"OI{weight[2]}o{weight[3]}i", "OI")
        elif family == "dense" and len(data) == 2:  # dense_pack's (N/n, K, n), VNNI's (N/16, K/4, 16, 4)
            weight = dense_weight(weight)
    except LayoutError:
        pass
    return tuple(data), tuple(weight)


def _bitserial(workload: Workload, args: Sequence, bits_at: int) -> Workload:
    """A bitserial task's workload: its activation and weight bits and `unipolar` (4 and 2
    places after the bits in TOPI's (..., activation_bits, weight_bits, pack_dtype, out_dtype,
    unipolar)) say which computation the quantised operands make."""
    try:
        activation, weight, unipolar = args[bits_at], args[bits_at + 1], args[bits_at + 4]
    except IndexError:
        raise WorkloadError(f"expected the activation and weight bits and unipolar after argument {bits_at}") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (activation, weight)):
        raise WorkloadError(f"expected the activation and weight bits as integers, found {activation!r}, {weight!r}")
    return bitserial_workload(workload, activation, weight, bool(unipolar))
