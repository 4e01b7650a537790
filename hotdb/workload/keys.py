"""Canonical workloads: the identity of a computation, whoever names it.

A workload is an op family, logical shapes (NCHW data, OIHW weights for convolutions;
(M, K) data and (N, K) weights for dense; (B, M, K) and (B, N, K) for batch_matmul; a
matmul of higher rank is its one GEMM, leading or batch dims folded into M or B),
the attributes that change the computation and the data type. Its `key` is a readable
string; nodes, IR calls and tasks that compute the same thing get the same key, and
matching is a join on it.

A dimension that is dynamic in the IR (`?`: the batch of a detection head, the rows of a
dense layer) is -1 and prints as `?`: TVM compiles one kernel for every size, so it is one
workload. It never equals a concrete shape, so it is matched to no kernel by shape, and
its FLOPs are unknown (None). Channels, kernel sizes and reduction dims must be static.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from hotdb.workload.families import relay_op_family
from hotdb.workload.layouts import LayoutError, unpack

Shape = tuple[int, ...]


class WorkloadError(ValueError):
    """Arguments that cannot describe the workload they claim to."""


@dataclass(frozen=True)
class Workload:
    family: str
    dtype: str
    data: Shape
    weight: Shape
    out: Shape
    strides: Shape = ()
    padding: Shape = ()
    dilation: Shape = ()
    groups: int = 1
    extra: tuple[tuple[str, object], ...] = field(default=())

    @cached_property  # a reader asks it of every call with this workload (a Relay text: millions)
    def key(self) -> str:
        parts = [self.family, self.dtype, f"d={_dims(self.data)}"] + [f"w={_dims(self.weight)}"] * bool(self.weight)
        if self.strides:
            parts += [f"s={_dims(self.strides)}", f"p={','.join(map(str, self.padding))}",
                      f"dl={_dims(self.dilation)}", f"g={self.groups}"]
        parts += [f"{k}={v}" for k, v in self.extra]
        return " ".join(parts)

    @property
    def dynamic(self) -> bool:
        return any(d < 0 for d in (*self.data, *self.weight, *self.out))

    @property
    def flops(self) -> float | None:
        """Multiply-adds counted as two floating-point operations; None when a dimension is
        dynamic, or for an operator without a weight (pooling, softmax: no multiply-adds)."""
        if self.dynamic or not self.weight:
            return None
        if self.family in ("dense", "matmul"):
            m, k = self.data
            n = self.weight[0]
            return 2.0 * m * n * k
        if self.family == "batch_matmul":
            b, m, k = self.data
            n = self.weight[1]
            return 2.0 * max(b, self.weight[0]) * m * n * k
        if self.family.endswith("_transpose"):
            # Every input element scatters into a kernel window of output channels.
            out_per_group = self.weight[1]
            return 2.0 * math.prod(self.data) * out_per_group * math.prod(self.weight[2:])
        # Direct convolution: every output element reduces over (I / groups) x kernel.
        return 2.0 * math.prod(self.out) * math.prod(self.weight[1:])

    def attrs_json(self) -> str:
        attrs: dict[str, object] = {}
        if self.strides:
            attrs.update(strides=list(self.strides), padding=list(self.padding),
                         dilation=list(self.dilation), groups=self.groups)
        attrs.update(dict(self.extra))
        return json.dumps(attrs, sort_keys=True)


def _dims(shape: Sequence[int]) -> str:
    return "x".join(str(d) if d >= 0 else "?" for d in shape)


# ---------------------------------------------------------------------------------------
# Convolutions


def _expand(values: Sequence[int] | int | None, n: int, default: int) -> Shape:
    if values is None:
        return (default,) * n
    if isinstance(values, int):
        return (values,) * n
    values = tuple(int(v) for v in values)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise WorkloadError(f"expected {n} values, got {list(values)}")
    return values


def normalise_padding(padding: Sequence[int] | int | None, spatial: int) -> Shape:
    """Padding as (before..., after...): [1] and [1, 1] become [1, 1, 1, 1] in 2-D."""
    if padding is None:
        return (0,) * (2 * spatial)
    if isinstance(padding, int):
        return (padding,) * (2 * spatial)
    padding = tuple(int(p) for p in padding)
    if len(padding) == 1:
        return padding * (2 * spatial)
    if len(padding) == spatial:
        return padding + padding
    if len(padding) == 2 * spatial:
        return padding
    raise WorkloadError(f"padding {list(padding)} does not fit {spatial} spatial dimensions")


def conv_workload(data: Sequence[int], weight: Sequence[int], strides=None, padding=None,
                  dilation=None, groups: int = 1, dtype: str = "float32",
                  transpose: bool = False, output_padding=None) -> Workload:
    """A convolution from logical NC<spatial> data and OI<spatial> weights
    (IO<spatial> for transposed convolutions, as Relay and TOPI store them)."""
    data, weight = tuple(int(d) for d in data), tuple(int(d) for d in weight)
    spatial = len(data) - 2
    if spatial < 1 or len(weight) != len(data):
        raise WorkloadError(f"data {list(data)} and weight {list(weight)} are not a convolution")
    strides = _expand(strides, spatial, 1)
    dilation = _expand(dilation, spatial, 1)
    pads = normalise_padding(padding, spatial)
    groups = int(groups or 1)
    names = {1: "conv1d", 2: "conv2d", 3: "conv3d"}
    if spatial not in names:
        raise WorkloadError(f"{spatial}-D convolutions are not supported")
    family = names[spatial]
    n, c, *in_spatial = data
    kernel = weight[2:]
    if c < 0 or any(d < 0 for d in weight):
        raise WorkloadError(f"data {list(data)} and weight {list(weight)}: channels and kernel sizes must be static")
    extra: tuple = ()
    if transpose:
        family += "_transpose"
        out_pad = _expand(output_padding, spatial, 0)
        out_channels = weight[1] * groups
        out_spatial = [(x - 1) * s - pads[i] - pads[i + spatial] + d * (k - 1) + op + 1 if x >= 0 else x
                       for i, (x, s, d, k, op) in enumerate(zip(in_spatial, strides, dilation, kernel, out_pad))]
        if any(out_pad):
            extra = (("output_padding", _dims(out_pad)),)
    else:
        if c % groups or weight[1] * groups != c:
            raise WorkloadError(f"data has {c} channels but weight {list(weight)} with groups={groups} expects {weight[1] * groups}")
        out_channels = weight[0]
        out_spatial = [(x + pads[i] + pads[i + spatial] - (d * (k - 1) + 1)) // s + 1 if x >= 0 else x
                       for i, (x, s, d, k) in enumerate(zip(in_spatial, strides, dilation, kernel))]
        if spatial == 2 and groups > 1 and groups == c and weight[1] == 1:
            family = "depthwise_conv2d"
    out = (n, out_channels, *out_spatial)
    if any(d == 0 or d < -1 for d in out):
        raise WorkloadError(f"convolution of {list(data)} by {list(weight)} has an empty output {list(out)}")
    return Workload(family, dtype, data, weight, out, strides, pads, dilation, groups, extra)


def bitserial_workload(workload: Workload, activation_bits: int, weight_bits: int, unipolar: bool) -> Workload:
    """A bitserial convolution or dense (Relay's nn.bitserial_*, TOPI's bitserial_* tasks):
    the workload of the same shapes, with the bits its quantised operands have."""
    return replace(workload, extra=workload.extra + (("bits", f"{int(activation_bits)}x{int(weight_bits)}"),
                                                     ("unipolar", int(bool(unipolar)))))


def dense_workload(data: Sequence[int], weight: Sequence[int], dtype: str = "float32") -> Workload:
    """y = x W^T with x (M, K) and W (N, K)."""
    data, weight = tuple(int(d) for d in data), tuple(int(d) for d in weight)
    if len(data) != 2 or len(weight) != 2 or data[1] != weight[1] or data[1] < 0 or weight[0] < 0:
        raise WorkloadError(f"data {list(data)} and weight {list(weight)} are not a dense (M, K) x (N, K)")
    return Workload("dense", dtype, data, weight, (data[0], weight[0]))


def dense_weight(weight: Sequence[int]) -> Shape:
    """A dense layer's (N, K) weight from the shape it is given in: as it is, or packed by
    x86's AlterOpLayout as (N/n, K, n) for dense_pack (NC{n}n) or (N/16, K/4, 16, 4) for
    VNNI and AMX (NC16n4c)."""
    weight = tuple(int(d) for d in weight)
    if len(weight) == 3:
        return weight[0] * weight[2], weight[1]
    if len(weight) == 4:
        return weight[0] * weight[2], weight[1] * weight[3]
    return weight


def _folded(shape: Sequence[int]) -> tuple[int, int]:
    """(M, K) of a matrix operand of any rank >= 2: its leading dims are one GEMM's rows
    (Relay's dense of (d1, ..., K) data, Relax's matmul of (..., M, K))."""
    shape = tuple(int(d) for d in shape)
    if len(shape) < 2:
        raise WorkloadError(f"a matrix operand needs 2 or more dims, got {list(shape)}")
    rows = -1 if any(d < 0 for d in shape[:-1]) else math.prod(shape[:-1])
    return rows, shape[-1]


def unfolded(workload: Workload, leading: Sequence[int]) -> Workload:
    """The workload with its output shaped as the operator's: its leading dims unfolded (a
    kernel prints that shape; the key is of the folded GEMM)."""
    return replace(workload, out=tuple(int(d) for d in leading) + workload.out[-1:])


def _batched(shape: Sequence[int]) -> tuple[int, int, int]:
    """(B, M, K) of an operand of rank >= 3: its batch dims folded into B."""
    shape = tuple(int(d) for d in shape)
    batch = -1 if any(d < 0 for d in shape[:-2]) else math.prod(shape[:-2])
    return batch, shape[-2], shape[-1]


def matmul_workload(a: Sequence[int], b: Sequence[int], dtype: str = "float32", transpose_b: bool = False) -> Workload:
    """numpy's matmul, (..., M, K) x (K, N) (or (N, K) with `transpose_b`), as one GEMM: a
    dense of `a`'s leading dims folded into M when `b` is a matrix, a batch_matmul of both
    operands' batch dims folded into B when both have them (broadcast: one may be 1)."""
    a = tuple(int(d) for d in a)
    if len(b) == 2:
        weight = tuple(int(d) for d in b)
        k = weight[1] if transpose_b else weight[0]
        if len(a) >= 2 and min(a[-1], k) >= 0 and a[-1] != k:
            raise WorkloadError(f"matmul of {list(a)} by {list(weight)}{' transposed' if transpose_b else ''}: "
                                f"the operands disagree on K ({a[-1]} and {k})")
        return unfolded(dense_workload(_folded(a), weight if transpose_b else weight[::-1], dtype), a[:-1])
    if len(a) >= 3 and len(b) >= 3:
        b = tuple(int(d) for d in b)
        batch = (tuple(max(x, y) if min(x, y) >= 0 else -1 for x, y in zip(a[:-2], b[:-2])) if len(a) == len(b)
                 else a[:-2] if len(a) > len(b) else b[:-2])  # numpy broadcasts the batch dims
        return unfolded(batch_matmul_workload(_batched(a), _batched(b), dtype, transpose_b=transpose_b), batch + a[-2:-1])
    raise WorkloadError(f"matmul of {list(a)} by {list(b)}: hotdb keys a matrix or batched operand of 2 or more dims")


def batch_matmul_workload(x: Sequence[int], y: Sequence[int], dtype: str = "float32",
                          transpose_a: bool = False, transpose_b: bool = True) -> Workload:
    """Canonical form (B, M, K) x (B, N, K), whatever the transposes were."""
    x, y = tuple(int(d) for d in x), tuple(int(d) for d in y)
    if len(x) != 3 or len(y) != 3:
        raise WorkloadError(f"batch_matmul needs 3-D operands, got {list(x)} and {list(y)}")
    if transpose_a:
        x = (x[0], x[2], x[1])
    if not transpose_b:
        y = (y[0], y[2], y[1])
    if x[2] != y[2] or x[2] < 0 or y[1] < 0:
        raise WorkloadError(f"batch_matmul operands {list(x)} and {list(y)} disagree on K")
    batch = max(x[0], y[0]) if x[0] >= 0 and y[0] >= 0 else -1
    return Workload("batch_matmul", dtype, x, y, (batch, x[1], y[1]))


# ---------------------------------------------------------------------------------------
# From Relay calls


def from_relay_call(op_name: str, attrs: dict, arg_shapes: Sequence[Sequence[int] | None],
                    arg_dtypes: Sequence[str | None]) -> Workload | None:
    """The workload of a typed Relay call, or None when the op is not tunable or its
    operand shapes are unknown. Raises WorkloadError when the shapes contradict the op."""
    family = relay_op_family(op_name)
    if len(arg_shapes) < 2 or arg_shapes[0] is None or arg_shapes[1] is None:
        return None
    if any(d < 0 for d in arg_shapes[1]) or any(d < -1 for d in arg_shapes[0]):
        return None  # a weight of unknown shape, or data that inference could not determine
    dtype = arg_dtypes[0] or "float32"
    try:
        if family in ("conv1d", "conv2d", "conv3d", "depthwise_conv2d", "conv1d_transpose",
                      "conv2d_transpose", "conv3d_transpose"):
            if "winograd" in op_name:
                return None  # pre-transformed kernel: the logical weight is not in the IR
            spatial = len(arg_shapes[0]) - 2
            default_data = {1: "NCW", 2: "NCHW", 3: "NCDHW"}.get(spatial, "NCHW")
            transpose = family.endswith("_transpose")
            data_layout = attrs.get("data_layout") or default_data
            if any(d < 0 for d in arg_shapes[0]) and any(ch.isdigit() for ch in data_layout):
                return None  # a packed layout with a dynamic dimension
            default_kernel = ("IO" if transpose else "OI") + default_data[2:]
            kernel_layout = attrs.get("kernel_layout") or default_kernel
            primal = "".join(ch for ch in data_layout if ch.isupper())
            data = unpack(arg_shapes[0], data_layout, "NC" + primal[2:] if primal.startswith("NC") else canonical_act(primal))
            kprimal = "".join(ch for ch in kernel_layout if ch.isupper())
            target_kernel = ("IO" if transpose else "OI") + "".join(ch for ch in kprimal if ch not in "OI")
            weight = unpack(arg_shapes[1], kernel_layout, target_kernel)
            workload = conv_workload(data, weight, attrs.get("strides"), attrs.get("padding"),
                                     attrs.get("dilation"), attrs.get("groups", 1), dtype,
                                     transpose=transpose, output_padding=attrs.get("output_padding"))
            return _bits(op_name, attrs, workload)
        if family == "dense":
            weight = dense_weight(arg_shapes[1])
            return _bits(op_name, attrs, unfolded(dense_workload(_folded(arg_shapes[0]), weight, dtype),
                                                  tuple(arg_shapes[0])[:-1]))
        if family == "matmul":  # Relay's nn.matmul (transpose_b), Relax's R.matmul (none)
            return matmul_workload(arg_shapes[0], arg_shapes[1], dtype, bool(attrs.get("transpose_b", False)))
        if family == "batch_matmul":
            return batch_matmul_workload(arg_shapes[0], arg_shapes[1], dtype,
                                         bool(attrs.get("transpose_a", False)),
                                         bool(attrs.get("transpose_b", True)))
    except LayoutError as exc:
        raise WorkloadError(str(exc)) from exc
    except WorkloadError:
        raise  # the shapes' own contradiction, said as it is
    except (TypeError, ValueError, IndexError) as exc:  # attributes of the wrong type or length
        raise WorkloadError(f"attributes do not describe {op_name}: {exc}") from exc
    return None


def _bits(op_name: str, attrs: dict, workload: Workload) -> Workload:
    """A bitserial op's workload with its bits (Relay's attrs: unipolar unless told)."""
    if not op_name.startswith("nn.bitserial_"):
        return workload
    activation = attrs.get("activation_bits", attrs.get("data_bits", 1))
    return bitserial_workload(workload, activation, attrs.get("weight_bits", 1), attrs.get("unipolar", True))


def canonical_act(primal: str) -> str:
    # NHWC -> NCHW, NDHWC -> NCDHW, NWC -> NCW
    return "NC" + "".join(ch for ch in primal if ch not in "NC")


# ---------------------------------------------------------------------------------------
# From kernels whose only shape is the output


def logical_output_shape(family: str, out_shape: Sequence[int] | None, layout: str | None = None) -> Shape | None:
    """The logical output shape of a kernel of `family` from its (maybe packed) output.

    With the output's layout (profiler reports give it) a convolution output is put in
    NCHW order; without it, a 5-D output is x86's NCHW{c}c and a 4-D one is taken as it
    is. Dense and batch_matmul outputs are already logical.
    """
    if out_shape is None:
        return None
    shape = tuple(int(d) for d in out_shape)
    if family in ("conv2d", "depthwise_conv2d", "conv2d_transpose"):
        try:
            if layout and len([c for c in layout if c.isalpha()]) == len(shape):
                return unpack(shape, layout, "NCHW")
            if len(shape) == 5:
                return unpack(shape, f"NCHW{shape[4]}c")
        except LayoutError:
            return shape
    return shape


# ---------------------------------------------------------------------------------------
# From kernels whose input shapes are known (ladder rule 2)

_DEFAULT_DATA = {4: "NCHW", 5: None}  # 5-D: NCHW{c}c with c read from the shape


def data_layout_of(shape: Sequence[int], given: str | None) -> str:
    if given and len([c for c in given if c.isalpha()]) == len(shape):
        return given
    if len(shape) == 5:
        return f"NCHW{shape[4]}c"
    return "NCHW"


def kernel_layout_of(shape: Sequence[int], given: str | None) -> str:
    if given and len([c for c in given if c.isalpha()]) == len(shape):
        return given
    if len(shape) == 6:
        return f"OIHW{shape[4]}i{shape[5]}o"
    if len(shape) == 7:
        return f"OIHW{shape[4]}i{shape[5]}o{shape[6]}i"
    return "OIHW"


def logical_operands(family: str, input_shapes: Sequence[Sequence[int] | None] | None,
                     layouts: dict | None = None, winograd: bool = False) -> tuple[Shape, Shape] | None:
    """Logical (data, weight) of a kernel from its input shapes (inputs in parameter order,
    packed layouts as the kernel received them), or None when they do not say.

    Without layout attributes the rank decides: 5-D data is NCHW{c}c, a 6-D kernel
    OIHW{i}i{o}o, a 7-D one OIHW{i}i{o}o{4}i. A Winograd kernel whose weight was
    transformed ahead of time, (alpha, alpha, I, O), is taken back to (O, I, 3, 3).
    """
    shapes = [tuple(int(d) for d in s) for s in (input_shapes or []) if s is not None]
    layouts = layouts or {}
    try:
        if family in ("conv2d", "depthwise_conv2d"):
            data_at = next((i for i, s in enumerate(shapes) if len(s) in (4, 5)), None)
            if data_at is None or data_at + 1 >= len(shapes):
                return None
            data_shape, kernel = shapes[data_at], shapes[data_at + 1]
            data = unpack(data_shape, data_layout_of(data_shape, layouts.get("data_layout")), "NCHW")
            if winograd:
                if len(kernel) != 4:
                    return None
                return data, (kernel[3], kernel[2], 3, 3)
            if len(kernel) not in (4, 6, 7):
                return None
            weight = unpack(kernel, kernel_layout_of(kernel, layouts.get("kernel_layout")), "OIHW")
            return data, weight
        if family in ("dense", "matmul"):
            two = [s for s in shapes if len(s) in (2, 3, 4)]
            if len(two) < 2 or len(two[0]) != 2:
                return None
            return two[0], dense_weight(two[1])
        if family == "batch_matmul":
            three = [s for s in shapes if len(s) == 3]
            return (three[0], three[1]) if len(three) >= 2 else None
    except LayoutError:
        return None
    return None


def flat_dims(shapes: Sequence[Sequence[int] | None]) -> str | None:
    """All dims of all shapes, comma-joined: how 2021 auto_scheduler keys list shapes."""
    if not shapes or any(s is None for s in shapes):
        return None
    return ",".join(str(int(d)) for s in shapes for d in s)


def from_kernel_args(family: str | None, args: list[tuple[list[int], str]]):
    """The canonical workload of a TIR kernel from its argument shapes alone, or None.

    Dense and matmul always; a convolution when exactly one stride and symmetric padding
    explain its output size (dilation 1). What a kernel's IR says is checked against it
    by the matcher (a name match and a shape match must agree)."""
    if family is None or len(args) < 3 and family not in ("matmul", "dense"):
        return None
    shapes, dtype = [s for s, _ in args], args[0][1]
    try:
        if family in ("matmul", "dense") and len(shapes) >= 3 and len(shapes[0]) >= 2 and len(shapes[1]) == 2:
            (m, k), w = _folded(shapes[0]), shapes[1]
            weight = (w[1], w[0]) if w[0] == k else tuple(w)  # Relax passes the weight as (K, N)
            return unfolded(dense_workload((m, k), weight, dtype), shapes[0][:-1])
        if family in ("conv2d", "depthwise_conv2d"):
            operands = logical_operands("conv2d", shapes[:-1])
            if operands is None or len(shapes[-1]) != 4:
                return None
            data, weight = operands
            out = tuple(shapes[-1])
            groups = data[1] // weight[1] if weight[1] and data[1] % weight[1] == 0 else 1
            found = []
            for stride in (1, 2, 3, 4):
                for pad in range(0, max(weight[2], weight[3]) + 1):
                    if all((x + 2 * pad - k) // stride + 1 == o for x, k, o in zip(data[2:], weight[2:], out[2:])):
                        found.append((stride, pad))
            if len(found) != 1:
                return None
            stride, pad = found[0]
            return conv_workload(data, weight, (stride, stride), (pad, pad), (1, 1), groups, dtype)
    except WorkloadError:
        return None
    return None
