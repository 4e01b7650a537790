"""Operator families: one name for a computation however TVM spells it.

Relay calls (`nn.contrib_conv2d_NCHWc`), tuning tasks (`conv2d_NCHWc.x86`,
`topi_x86_conv2d_NCHWc`) and fused kernel symbols
(`tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_5`) all name the same
family, `conv2d`. Families are what the matcher compares; the *variant* (winograd,
NCHWc, spatial_pack, ...) only breaks ties between several tasks of one workload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Relay op name -> family. Relay has no separate depthwise op: nn.conv2d with
# groups == in_channels is recognised from its attributes in keys.py.
_RELAY_OPS = {
    "nn.conv1d": "conv1d",
    "nn.conv2d": "conv2d",
    "nn.conv3d": "conv3d",
    "nn.contrib_conv2d_NCHWc": "conv2d",
    "nn.contrib_conv2d_nchwc": "conv2d",
    "nn.contrib_conv2d_NCHWc_int8": "conv2d",
    "nn.contrib_depthwise_conv2d_NCHWc": "depthwise_conv2d",
    "nn.contrib_conv2d_winograd_without_weight_transform": "conv2d",
    "nn.contrib_conv2d_winograd_nnpack_without_weight_transform": "conv2d",
    "nn.contrib_conv3d_winograd_without_weight_transform": "conv3d",
    "nn.conv1d_transpose": "conv1d_transpose",
    "nn.conv2d_transpose": "conv2d_transpose",
    "nn.conv3d_transpose": "conv3d_transpose",
    "nn.dense": "dense",
    "nn.contrib_dense_pack": "dense",
    "nn.bitserial_dense": "dense",  # with its bits (keys.py: from_relay_call)
    "nn.bitserial_conv2d": "conv2d",
    "nn.matmul": "matmul",
    "matmul": "matmul",  # Relax R.matmul
    "nn.batch_matmul": "batch_matmul",
}


def relay_op_family(op_name: str) -> str:
    """Family of a Relay operator; non-tunable ops keep their name without the `nn.` prefix."""
    family = _RELAY_OPS.get(op_name)
    if family is not None:
        return family
    return op_name.removeprefix("nn.").removeprefix("contrib_").replace(".", "_")


@dataclass(frozen=True)
class TaskTemplate:
    """What a tuning-task name says: family, variant and the layouts of its tensor args."""

    family: str
    variant: str
    data_layout: str = "NCHW"
    kernel_layout: str = "OIHW"


# Ordered: the first pattern that matches the task name (without `.target`) wins.
_TASK_PATTERNS: list[tuple[re.Pattern[str], TaskTemplate]] = [
    (re.compile(p), t)
    for p, t in [
        # bitserial: logical tensors, their bits part of the workload (hotdb/workload/autotvm.py)
        (r"^bitserial_conv2d_nhwc", TaskTemplate("conv2d", "bitserial", "NHWC", "HWIO")),
        (r"^bitserial_conv2d", TaskTemplate("conv2d", "bitserial")),
        (r"^bitserial_dense", TaskTemplate("dense", "bitserial", "NC", "OI")),
        # VTA: tensors packed as NCHW1n16c / OIHW16o16i (hotdb/workload/autotvm.py unpacks them)
        (r"^group_conv2d_packed", TaskTemplate("conv2d", "group_packed")),
        (r"^conv2d_transpose_packed", TaskTemplate("conv2d_transpose", "packed", "NCHW", "IOHW")),
        (r"^conv2d_packed", TaskTemplate("conv2d", "packed")),
        (r"^dense_packed", TaskTemplate("dense", "packed", "NC", "OI")),
        (r"^(topi_nn_)?depthwise_conv2d_nhwc", TaskTemplate("depthwise_conv2d", "direct", "NHWC", "HWOI")),
        (r"^(topi_(x86|nn|arm_cpu|cuda)_)?depthwise_conv2d_nchwc?", TaskTemplate("depthwise_conv2d", "direct")),
        (r"^(topi_x86_)?depthwise_conv2d_NCHWc", TaskTemplate("depthwise_conv2d", "NCHWc")),
        (r"^(topi_)?(\w+_)?conv2d_nhwc_winograd", TaskTemplate("conv2d", "winograd", "NHWC", "HWIO")),
        (r"^(topi_)?(\w+_)?conv2d_nhwc", TaskTemplate("conv2d", "direct", "NHWC", "HWIO")),
        (r"winograd", TaskTemplate("conv2d", "winograd")),
        (r"^(topi_x86_)?conv2d_NCHWc", TaskTemplate("conv2d", "NCHWc")),
        (r"spatial_pack", TaskTemplate("conv2d", "spatial_pack")),
        (r"^group_conv2d", TaskTemplate("conv2d", "group")),
        (r"^(topi_nn_)?conv2d_transpose", TaskTemplate("conv2d_transpose", "direct", "NCHW", "IOHW")),
        (r"^conv1d_transpose", TaskTemplate("conv1d_transpose", "direct", "NCW", "IOW")),
        (r"^(topi_nn_)?conv1d", TaskTemplate("conv1d", "direct", "NCW", "OIW")),
        (r"^(topi_nn_)?conv3d", TaskTemplate("conv3d", "direct", "NCDHW", "OIDHW")),
        (r"^(topi_(x86|nn|cuda)_)?conv2d", TaskTemplate("conv2d", "direct")),
        (r"^dense_pack", TaskTemplate("dense", "pack", "NC", "OI")),
        (r"^dense_(vnni|amx_int8)", TaskTemplate("dense", "vnni", "NC", "OI")),
        (r"^(topi_(x86|nn|cuda)_)?dense", TaskTemplate("dense", "direct", "NC", "OI")),
        (r"^(topi_(x86|nn|cuda)_)?batch_matmul", TaskTemplate("batch_matmul", "direct", "", "")),
        (r"^matmul", TaskTemplate("matmul", "direct", "", "")),
    ]
]


def task_template(task_name: str) -> TaskTemplate | None:
    """The template of an AutoTVM task name such as `conv2d_NCHWc.x86` or `topi_nn_conv2d`.

    None for names hotdb cannot canonicalise (custom templates).
    """
    base = task_name.split(".", 1)[0]
    for pattern, template in _TASK_PATTERNS:
        if pattern.search(base):
            return template
    return None


# ---------------------------------------------------------------------------------------
# Fused kernel symbols

# The rule of queries/kernel_symbol.sql (a test holds the two to each other)
_PREFIXES = re.compile(r"^(?:tvmgen_[A-Za-z0-9]+_|vm_mod_|__tvm_)*")
_LONG_NAME_HASH = re.compile(r"_[0-9a-f]{8,}_(?=(_\d+)?$)")
_NUMBER = re.compile(r"_(\d+)$")

# Tokens of fused names, as `op.name` with '.' replaced by '_', in the order in which
# the anchor (the op a tuner tunes) is recognised. The first match anywhere in the name
# wins, so longer spellings come before their prefixes.
_ANCHORS: list[tuple[str, str, str | None]] = [
    ("nn_contrib_conv2d_winograd_without_weight_transform", "conv2d", "winograd"),
    ("nn_contrib_conv2d_winograd_nnpack_without_weight_transform", "conv2d", "winograd"),
    ("nn_contrib_conv2d_winograd_weight_transform", "winograd_weight_transform", None),
    ("nn_contrib_depthwise_conv2d_NCHWc", "depthwise_conv2d", "NCHWc"),
    ("nn_contrib_conv2d_NCHWc_int8", "conv2d", "NCHWc"),
    ("nn_contrib_conv2d_NCHWc", "conv2d", "NCHWc"),
    ("nn_conv2d_transpose", "conv2d_transpose", None),
    ("nn_conv1d_transpose", "conv1d_transpose", None),
    ("nn_conv3d_transpose", "conv3d_transpose", None),
    ("nn_conv2d", "conv2d", None),
    ("nn_conv1d", "conv1d", None),
    ("nn_conv3d", "conv3d", None),
    ("nn_contrib_dense_pack", "dense", "pack"),
    ("nn_dense", "dense", None),
    ("nn_batch_matmul", "batch_matmul", None),
    ("nn_matmul", "matmul", None),
    # Relax PrimFunc names (legalized ops have no `nn_`): fused_conv2d1_add1_relu1, matmul3
    ("conv2d_transpose", "conv2d_transpose", None),
    ("conv1d_transpose", "conv1d_transpose", None),
    ("conv3d_transpose", "conv3d_transpose", None),
    ("depthwise_conv2d", "depthwise_conv2d", None),
    ("conv2d", "conv2d", None),
    ("conv1d", "conv1d", None),
    ("conv3d", "conv3d", None),
    ("batch_matmul", "batch_matmul", None),
    ("dense", "dense", None),
    ("matmul", "matmul", None),
]

# Non-tunable ops, so that `top --by op` groups kernels by something readable.
_OTHER_OPS = [
    "layout_transform", "nn_max_pool2d", "nn_avg_pool2d", "nn_global_avg_pool2d",
    "nn_global_max_pool2d", "nn_adaptive_avg_pool2d", "nn_adaptive_max_pool2d", "nn_softmax",
    "nn_log_softmax", "nn_batch_flatten", "nn_pad", "nn_relu", "nn_bias_add", "nn_batch_norm",
    "nn_layer_norm", "nn_group_norm", "nn_rms_norm", "nn_lrn", "resize2d", "permute_dims", "concatenate",
    "transpose", "reshape", "squeeze", "expand_dims",
    "strided_slice", "take", "cast", "clip", "add", "subtract", "multiply", "divide", "mean",
    "sum", "max", "where", "image_resize2d", "image_resize", "split", "copy",
]


@dataclass(frozen=True)
class KernelName:
    """What a kernel symbol says about itself."""

    symbol: str  #: as given, e.g. `tvmgen_default_fused_nn_conv2d_add_nn_relu_3`
    base: str  #: without prefixes and numbering, e.g. `fused_nn_conv2d_add_nn_relu`
    number: int  #: the uniquifying suffix (`_3` -> 3, none -> 0)
    family: str  #: the anchor op's family, e.g. `conv2d`; a non-tunable op's own name
    variant: str | None  #: `winograd`, `NCHWc`, ... when the name shows it


def parse_kernel_name(symbol: str) -> KernelName:
    """Split a fused function symbol into base name, number and anchor family."""
    name = _PREFIXES.sub("", symbol)
    name = _LONG_NAME_HASH.sub("_", name)
    name = re.sub(r"__+", "_", name)
    number = 0
    match = _NUMBER.search(name)
    if match and len(match.group(1)) <= 9:  # TVM numbers duplicates 1, 2, ...; longer digits are part of the name
        number = int(match.group(1))
        name = name[: match.start()]
    body = name.removeprefix("fused_").removeprefix("fuse_")  # fuse_: NNVM-era symbols
    # Relax numbers a repeated op name with digits glued on (conv2d1, add2, mean3): an op
    # is named by its tokens without them, so that no family ends in a digit.
    body = "_".join(token.rstrip("0123456789") or token for token in body.split("_"))
    padded = f"_{body}_"
    for token, family, variant in _ANCHORS:
        if f"_{token}_" in padded or (token.startswith("nn_contrib_") and f"_{token[3:]}_" in padded):
            return KernelName(symbol, name, number, family, variant)
    for token in _OTHER_OPS:
        # Relax names legalized PrimFuncs without `nn_`: max_pool2d, adaptive_avg_pool2d1
        for spelling in dict.fromkeys((token, token.removeprefix("nn_"))):
            if body == spelling or body.startswith(spelling + "_"):
                return KernelName(symbol, name, number, token.removeprefix("nn_"), None)
    first = body.split("_", 1)[0] if body else ""
    if not first or first[-1].isdigit():
        first = "unknown"
    return KernelName(symbol, name, number, first, None)


# Anchor blocks of legalized TIR (the first reduction block of a PrimFunc).
_SBLOCKS = [
    ("depthwise_conv2d", "depthwise_conv2d"), ("conv2d_transpose", "conv2d_transpose"),
    ("conv1d", "conv1d"), ("conv2d", "conv2d"), ("conv3d", "conv3d"), ("batch_matmul", "batch_matmul"),
    ("NT_matmul", "matmul"), ("matmul", "matmul"), ("dense", "dense"),
    ("pool_max", "max_pool2d"), ("pool_avg", "avg_pool2d"), ("adaptive_pool", "adaptive_avg_pool2d"),
]


def sblock_family(block: str) -> str:
    """Family of a PrimFunc from the name of its anchor block (`conv2d_nchw` -> conv2d)."""
    for token, family in _SBLOCKS:
        if token in block:
            return family
    return block
