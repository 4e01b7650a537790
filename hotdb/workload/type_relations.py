"""Result types of Relay operators from their argument types and attributes.

IR printed before type inference (TVM's own Collage tests, tvmc printouts, `print(func)`
of a freshly imported model) carries no `/* ty=... */` annotations: only the parameters
are typed. TVM's type relations are re-stated here for the ops that models are made of,
so that convolutions and dense layers get their shapes, and with them their workloads.

A type is a list of fields (one for a tensor, several for a tuple); a field is
`(shape, dtype)`. A shape may hold DYNAMIC (-1) for a dimension the IR itself prints as
`?`, and UNKNOWN (-2) for one that inference could not determine; a workload may have the
first (one kernel for every size) but never the second. `None` stands for a type that is
not known at all. Every function is pure and total: an op it
does not know, or arguments it cannot read, give `None`, never an exception.

Two ops also complete an argument: the weight of `nn.conv*` and `nn.dense` follows from
the data and the `channels`/`kernel_size`/`units` attributes when the weight itself is an
untyped parameter or a `meta[relay.Constant]` without annotation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from hotdb.workload.layouts import LayoutError, pack, parse_layout, unpack

Field = tuple[list[int] | None, str | None]
Type = list[Field] | None

DYNAMIC = -1  # `?` in the IR: known to vary
UNKNOWN = -2  # not determined by what was printed


class _Unknown(Exception):
    """Raised inside a relation when the arguments do not determine the result."""


def infer(op: str, attrs: dict, args: Sequence[Type]) -> tuple[Type, list[Type]]:
    """(result type, argument types possibly completed) of `op` applied to `args`."""
    args = list(args)
    relation = _RELATIONS.get(op) or _RELATIONS.get(op.removeprefix("nn.")) or _RELATIONS.get(op.rsplit(".", 1)[-1])
    if relation is None:
        return None, args
    try:
        return relation(attrs, args), args
    except (_Unknown, LayoutError, TypeError, ValueError, IndexError, KeyError, ZeroDivisionError):
        return None, args


# -- helpers ------------------------------------------------------------------------------

def _tensor(t: Type) -> Field:
    """The one tensor of a type; _Unknown when unknown or a tuple."""
    if not t or len(t) != 1 or t[0][0] is None:
        raise _Unknown
    return t[0]


def _shape(t: Type) -> list[int]:
    return list(_tensor(t)[0])


def _dtype(t: Type) -> str | None:
    return t[0][1] if t and len(t) == 1 else None


def _ints(value, n: int | None = None) -> list[int]:
    if value is None:
        raise _Unknown
    values = [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    if n is not None and len(values) == 1:
        values = values * n
    return values


def _axis(axis: int, rank: int) -> int:
    axis = int(axis)
    return axis + rank if axis < 0 else axis


def _known(shape: Sequence[int]) -> bool:
    return all(d >= 0 for d in shape)


def _primal(layout: str) -> str:
    return "".join(letter for letter, size in parse_layout(layout) if size is None)


def _to_logical(shape: list[int], layout: str, canonical: str) -> list[int]:
    """`shape` laid out as `layout` in `canonical` primal order; -1 stays -1."""
    if _known(shape):
        return list(unpack(shape, layout, canonical))
    axes = parse_layout(layout)
    if len(axes) != len(shape) or any(size is not None for _, size in axes):
        raise _Unknown  # a packed layout with an unknown dimension
    by_letter = {letter: dim for (letter, _), dim in zip(axes, shape)}
    return [by_letter[letter] for letter in canonical]


def _from_logical(logical: list[int], canonical: str, layout: str) -> list[int]:
    if _known(logical):
        return list(pack(logical, layout, canonical))
    axes = parse_layout(layout)
    if any(size is not None for _, size in axes):
        raise _Unknown
    by_letter = dict(zip(canonical, logical))
    return [by_letter[letter] for letter, _ in axes]


def _broadcast(shapes: list[list[int]]) -> list[int]:
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = [d for d in dims if d >= 0 and d != 1]
        if known:
            out.append(max(known))
        elif dims and min(dims) < 0:
            out.append(min(dims))  # UNKNOWN before DYNAMIC
        else:
            out.append(1)
    return out


# -- relations ----------------------------------------------------------------------------

def _identity(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    return [(list(shape), dtype)]


def _cast(attrs: dict, args: list[Type]) -> Type:
    return [(_shape(args[0]), attrs.get("dtype") or _dtype(args[0]))]


def _cast_like(attrs: dict, args: list[Type]) -> Type:
    return [(_shape(args[0]), _dtype(args[1]))]


def _elementwise(out_dtype: str | None = None) -> Callable:
    def relation(attrs: dict, args: list[Type]) -> Type:
        # An operand of unknown type (an untyped constant) is taken to broadcast to the
        # others, as biases and scales do: the result keeps the known operands' shape.
        known = [t for t in args if t and len(t) == 1 and t[0][0] is not None]
        if not known:
            raise _Unknown
        shape = _broadcast([list(t[0][0]) for t in known])
        return [(shape, out_dtype or next((t[0][1] for t in known if t[0][1]), None))]
    return relation


def _conv(spatial: int, transpose: bool = False) -> Callable:
    default_data = {1: "NCW", 2: "NCHW", 3: "NCDHW"}[spatial]

    def relation(attrs: dict, args: list[Type]) -> Type:
        data_layout = attrs.get("data_layout") or default_data
        default_kernel = ("IO" if transpose else "OI") + default_data[2:]
        kernel_layout = attrs.get("kernel_layout") or default_kernel
        out_layout = attrs.get("out_layout") or data_layout
        canonical = "NC" + default_data[2:]
        data_shape, dtype = _tensor(args[0])
        data = _to_logical(list(data_shape), data_layout, canonical)
        groups = int(attrs.get("groups") or 1)
        kernel_canonical = ("IO" if transpose else "OI") + default_data[2:]
        if len(args) > 1 and args[1] and len(args[1]) == 1 and args[1][0][0] is not None:
            weight = _to_logical(list(args[1][0][0]), kernel_layout, kernel_canonical)
        else:  # untyped weight: what the attributes say it must be
            channels, kernel = attrs.get("channels"), _ints(attrs.get("kernel_size"), spatial)
            if channels is None or data[1] < 0:
                raise _Unknown
            if transpose:
                weight = [data[1], int(channels) // groups, *kernel]
            else:
                weight = [int(channels), data[1] // groups, *kernel]
            if len(args) > 1:
                args[1] = [(_from_logical(weight, kernel_canonical, kernel_layout), dtype)]
        strides = _ints(attrs.get("strides", 1), spatial)
        dilation = _ints(attrs.get("dilation", 1), spatial)
        padding = _ints(attrs.get("padding", 0))
        if len(padding) == 1:
            padding = padding * (2 * spatial)
        elif len(padding) == spatial:
            padding = padding + padding
        kernel = weight[2:]
        out_spatial = []
        for i in range(spatial):
            x, k, s, d = data[2 + i], kernel[i], strides[i], dilation[i]
            pads = padding[i] + padding[i + spatial]
            if x < 0 or k < 0:
                out_spatial.append(min(x, k))
            elif transpose:
                out_pad = _ints(attrs.get("output_padding", 0), spatial)[i]
                out_spatial.append((x - 1) * s - pads + d * (k - 1) + out_pad + 1)
            else:
                out_spatial.append((x + pads - d * (k - 1) - 1) // s + 1)
        out_channels = weight[1] * groups if transpose else weight[0]
        logical = [data[0], out_channels, *out_spatial]
        out_dtype = attrs.get("out_dtype") or dtype
        return [(_from_logical(logical, canonical, out_layout), out_dtype or None)]
    return relation


def _dense(attrs: dict, args: list[Type]) -> Type:
    data, dtype = _tensor(args[0])
    if len(args) > 1 and args[1] and len(args[1]) == 1 and args[1][0][0] is not None:
        weight = list(args[1][0][0])
        units = weight[0] * weight[2] if len(weight) == 3 else weight[0]  # dense_pack (N/n, K, n)
    else:
        if attrs.get("units") is None:
            raise _Unknown
        units = int(attrs["units"])
        if len(args) > 1:
            args[1] = [([units, data[-1]], dtype)]
    return [([*data[:-1], units], attrs.get("out_dtype") or dtype)]


def _matmul(attrs: dict, args: list[Type]) -> Type:
    a, dtype = _tensor(args[0])
    b = _shape(args[1])
    m = a[-1] if attrs.get("transpose_a") else a[-2]
    n = b[-2] if attrs.get("transpose_b") else b[-1]
    return [([*a[:-2], m, n], attrs.get("out_dtype") or dtype)]


def _batch_matmul(attrs: dict, args: list[Type]) -> Type:
    x, dtype = _tensor(args[0])
    y = _shape(args[1])
    transpose_a = bool(attrs.get("transpose_a", False))
    transpose_b = bool(attrs.get("transpose_b", True))
    m = x[2] if transpose_a else x[1]
    n = y[1] if transpose_b else y[2]
    batch = max(x[0], y[0]) if x[0] >= 0 and y[0] >= 0 else min(x[0], y[0])
    return [([batch, m, n], attrs.get("out_dtype") or dtype)]


def _batch_norm(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    channels = shape[_axis(attrs.get("axis", 1), len(shape))]
    return [(list(shape), dtype), ([channels], dtype), ([channels], dtype)]


def _dropout(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    return [(list(shape), dtype), (list(shape), dtype)]


def _reduce(out_dtype: str | None = None) -> Callable:
    def relation(attrs: dict, args: list[Type]) -> Type:
        shape, dtype = _tensor(args[0])
        rank = len(shape)
        axis = attrs.get("axis")
        axes = set(range(rank)) if axis is None else {_axis(a, rank) for a in _ints(axis)}
        if attrs.get("exclude"):
            axes = set(range(rank)) - axes
        if attrs.get("keepdims"):
            out = [1 if i in axes else d for i, d in enumerate(shape)]
        else:
            out = [d for i, d in enumerate(shape) if i not in axes]
        return [(out, out_dtype or dtype)]
    return relation


def _pool(global_: bool = False, adaptive: bool = False) -> Callable:
    def relation(attrs: dict, args: list[Type]) -> Type:
        shape, dtype = _tensor(args[0])
        layout = attrs.get("layout") or "NCHW"
        logical = _to_logical(list(shape), layout, "NCHW")
        if global_:
            logical[2:] = [1, 1]
        elif adaptive:
            size = _ints(attrs.get("output_size"), 2)
            logical[2:] = size
        else:
            pool = _ints(attrs.get("pool_size"), 2)
            strides = _ints(attrs.get("strides", 1), 2)
            dilation = _ints(attrs.get("dilation", 1), 2)
            padding = _ints(attrs.get("padding", 0))
            if len(padding) == 1:
                padding = padding * 4
            elif len(padding) == 2:
                padding = padding + padding
            ceil = bool(attrs.get("ceil_mode", False))
            for i in range(2):
                x = logical[2 + i]
                if x < 0:
                    continue
                span = x + padding[i] + padding[i + 2] - dilation[i] * (pool[i] - 1) - 1
                logical[2 + i] = (-(-span // strides[i]) if ceil else span // strides[i]) + 1
        return [(_from_logical(logical, "NCHW", layout), dtype)]
    return relation


def _reshape(attrs: dict, args: list[Type]) -> Type:
    newshape = _ints(attrs.get("newshape"))
    if args[0] is None and all(d > 0 or d == -1 for d in newshape):
        # an input of unknown type: the dims the new shape states are still known
        return [([d if d > 0 else UNKNOWN for d in newshape], None)]
    shape, dtype = _tensor(args[0])
    out: list[int] = []
    infer_at = None
    for i, dim in enumerate(newshape):
        if dim > 0:
            out.append(dim)
        elif dim == 0:
            out.append(shape[i] if i < len(shape) else UNKNOWN)
        elif dim == -1 and infer_at is None:
            infer_at = len(out)
            out.append(UNKNOWN)
        else:
            raise _Unknown  # -2, -3, -4: rare, and TVM prints their result types anyway
    if infer_at is not None:
        others = out[:infer_at] + out[infer_at + 1:]
        if _known(shape) and _known(others):
            rest = math.prod(others)
            if rest and math.prod(shape) % rest == 0:
                out[infer_at] = math.prod(shape) // rest
        elif min(shape + others, default=0) == DYNAMIC:
            out[infer_at] = DYNAMIC
    return [(out, dtype)]


def _reshape_like(attrs: dict, args: list[Type]) -> Type:
    return [(_shape(args[1]), _dtype(args[0]))]


def _batch_flatten(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    rest = shape[1:]
    return [([shape[0], math.prod(rest) if _known(rest) else min(rest)], dtype)]


def _squeeze(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    axis = attrs.get("axis")
    if axis is None:
        if not _known(shape):
            raise _Unknown
        return [([d for d in shape if d != 1], dtype)]
    drop = {_axis(a, len(shape)) for a in _ints(axis)}
    return [([d for i, d in enumerate(shape) if i not in drop], dtype)]


def _expand_dims(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    axis = int(attrs.get("axis", 0))
    count = int(attrs.get("num_newaxis", 1))
    at = axis + len(shape) + 1 if axis < 0 else axis
    return [(shape[:at] + [1] * count + shape[at:], dtype)]


def _transpose(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    axes = attrs.get("axes")
    order = list(reversed(range(len(shape)))) if axes is None else [_axis(a, len(shape)) for a in _ints(axes)]
    return [([shape[i] for i in order], dtype)]


def _concatenate(attrs: dict, args: list[Type]) -> Type:
    fields = args[0]
    if not fields or any(f[0] is None for f in fields):
        raise _Unknown
    shapes = [list(f[0]) for f in fields]
    axis = _axis(attrs.get("axis", 0), len(shapes[0]))
    out = list(shapes[0])
    dims = [s[axis] for s in shapes]
    out[axis] = sum(dims) if all(d >= 0 for d in dims) else min(dims)
    return [(out, fields[0][1])]


def _stack(attrs: dict, args: list[Type]) -> Type:
    fields = args[0]
    if not fields or fields[0][0] is None:
        raise _Unknown
    shape = list(fields[0][0])
    axis = int(attrs.get("axis", 0))
    at = axis + len(shape) + 1 if axis < 0 else axis
    return [(shape[:at] + [len(fields)] + shape[at:], fields[0][1])]


def _split(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    axis = _axis(attrs.get("axis", 0), len(shape))
    sections = attrs.get("indices_or_sections")
    extent = shape[axis]
    if isinstance(sections, int):
        size = extent // sections if extent >= 0 else extent
        return [(shape[:axis] + [size] + shape[axis + 1:], dtype) for _ in range(sections)]
    bounds = [0, *_ints(sections), extent]
    return [(shape[:axis] + [(b - a) if b >= 0 else extent] + shape[axis + 1:], dtype)
            for a, b in zip(bounds, bounds[1:])]


def _take(attrs: dict, args: list[Type]) -> Type:
    data, dtype = _tensor(args[0])
    indices = _shape(args[1]) if args[1] and args[1][0][0] is not None else []
    axis = attrs.get("axis")
    if axis is None:
        return [(indices, dtype)]
    axis = _axis(axis, len(data))
    return [(data[:axis] + indices + data[axis + 1:], dtype)]


def _layout_transform(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    src, dst = attrs["src_layout"], attrs["dst_layout"]
    if not _known(shape):
        raise _Unknown
    canonical = _primal(src)
    return [(list(pack(unpack(shape, src, canonical), dst, canonical)), dtype)]


def _pad(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    widths = attrs.get("pad_width")
    out = [d + int(a) + int(b) if d >= 0 else d for d, (a, b) in zip(shape, widths)]
    return [(out, dtype)]


def _resize(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    layout = attrs.get("layout") or "NCHW"
    logical = _to_logical(list(shape), layout, "NCHW")
    if attrs.get("size") is not None:
        logical[2:] = _ints(attrs["size"], 2)
    else:
        scale_h, scale_w = float(attrs.get("scale_h", 1)), float(attrs.get("scale_w", 1))
        logical[2:] = [int(logical[2] * scale_h), int(logical[3] * scale_w)]
    return [(_from_logical(logical, "NCHW", layout), dtype)]


def _strided_slice(attrs: dict, args: list[Type]) -> Type:
    shape, dtype = _tensor(args[0])
    begin, end = _ints(attrs.get("begin")), _ints(attrs.get("end"))
    strides = _ints(attrs.get("strides", [1]))
    axes = attrs.get("axes")
    axes = [_axis(a, len(shape)) for a in _ints(axes)] if axes is not None else list(range(len(begin)))
    out = list(shape)
    for i, axis in enumerate(axes):
        extent = shape[axis]
        if extent < 0:
            continue
        b = begin[i] if i < len(begin) else 0
        e = end[i] if i < len(end) else extent
        s = strides[i] if i < len(strides) else strides[-1]
        if attrs.get("slice_mode") == "size":
            out[axis] = extent - b if e < 0 else e
            continue
        b, e = (b + extent if b < 0 else b), (e + extent if e < 0 else e)
        b, e = max(0, min(b, extent)), max(0, min(e, extent))
        out[axis] = max(0, -(-(e - b) // s)) if s > 0 else UNKNOWN
    return [(out, dtype)]


def _shape_of(attrs: dict, args: list[Type]) -> Type:
    shape, _ = _tensor(args[0])
    return [([len(shape)], attrs.get("dtype") or "int32")]


def _where(attrs: dict, args: list[Type]) -> Type:
    result = _elementwise()(attrs, args[1:] + args[:1])
    return [(result[0][0], _dtype(args[1]) or _dtype(args[2]))]


_UNARY = ("relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "negative", "abs", "erf", "clip",
          "copy", "leaky_relu", "prelu", "fast_exp", "fast_tanh", "fast_erf", "round", "floor", "ceil",
          "sign", "logical_not", "zeros_like", "ones_like", "softmax", "log_softmax", "fast_softmax",
          "bias_add", "layer_norm", "group_norm", "instance_norm", "l2_normalize", "lrn", "stop_fusion",
          "device_copy", "on_device", "cos", "sin", "trunc", "sigmoid", "hard_swish", "gelu", "silu")
_BINARY = ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "floor_divide", "mod",
           "floor_mod", "right_shift", "left_shift", "bitwise_and", "bitwise_or", "logical_and", "logical_or")
_COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")

_RELATIONS: dict[str, Callable] = {
    **{name: _identity for name in _UNARY},
    **{name: _elementwise() for name in _BINARY},
    **{name: _elementwise("bool") for name in _COMPARE},
    "cast": _cast, "cast_like": _cast_like,
    "conv1d": _conv(1), "conv2d": _conv(2), "conv3d": _conv(3),
    "conv1d_transpose": _conv(1, True), "conv2d_transpose": _conv(2, True), "conv3d_transpose": _conv(3, True),
    "contrib_conv2d_NCHWc": _conv(2), "contrib_depthwise_conv2d_NCHWc": _conv(2),
    "dense": _dense, "contrib_dense_pack": _dense, "matmul": _matmul, "batch_matmul": _batch_matmul,
    "batch_norm": _batch_norm, "dropout": _dropout,
    **{name: _reduce() for name in ("mean", "sum", "max", "min", "prod", "variance", "std", "logsumexp")},
    **{name: _reduce("bool") for name in ("all", "any")},
    **{name: _reduce("int32") for name in ("argmax", "argmin")},
    "max_pool2d": _pool(), "avg_pool2d": _pool(),
    "global_max_pool2d": _pool(global_=True), "global_avg_pool2d": _pool(global_=True),
    "adaptive_max_pool2d": _pool(adaptive=True), "adaptive_avg_pool2d": _pool(adaptive=True),
    "reshape": _reshape, "reshape_like": _reshape_like, "batch_flatten": _batch_flatten,
    "squeeze": _squeeze, "expand_dims": _expand_dims, "transpose": _transpose,
    "concatenate": _concatenate, "stack": _stack, "split": _split, "take": _take,
    "layout_transform": _layout_transform, "pad": _pad, "resize2d": _resize, "upsampling": _resize,
    "strided_slice": _strided_slice, "shape_of": _shape_of, "where": _where,
}
