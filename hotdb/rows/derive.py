"""What a kernel's symbol and shapes say about it: family, numbering, logical shapes.

Ingestors call `derive` on every node they read (and `derive_kernel_columns` on graph
nodes), and `attach_workload` on every task or IR call whose canonical workload they
found; the canonicalisation itself is hotdb/workload/ (pure).
"""

from __future__ import annotations

import json

from hotdb.workload import flat_dims, logical_operands, logical_output_shape, parse_kernel_name

#: the columns attach_workload() fills, on every row class that has them
WORKLOAD_COLUMNS = ("op_family", "workload_key", "out_shape_logical", "data_shape_logical", "weight_shape_logical")


def attach_workload(parsed, row, workload) -> str | None:
    """Give a task or IR call its canonical workload: the family the workload settles, its
    key (registered in `parsed`), and its logical output, data and weight shapes, so that
    every format fills the same columns for the same workload. A row class without operand
    columns (IR calls: their workload row holds them) keeps the rest. Without a workload
    the row is left as the reader made it. Returns the key."""
    if workload is None:
        return None
    row.op_family = workload.family
    row.workload_key = parsed.add_workload(workload)
    row.out_shape_logical = list(workload.out)
    if _has_operand_columns(type(row)):
        row.data_shape_logical, row.weight_shape_logical = list(workload.data), list(workload.weight) or None
    return row.workload_key


def _has_operand_columns(row_class) -> bool:
    return "data_shape_logical" in getattr(row_class, "__dataclass_fields__", ())


CACHE_KEPT = 4096  # the most recent signatures derive() keeps: a model has a few hundred

#: the NodeRow columns derive() fills
DERIVED_COLUMNS = ("kernel_family", "func_base", "func_number", "out_shape_logical", "data_shape_logical",
                   "weight_shape_logical", "args_flat")


def derive(row, cache: dict | None = None):
    """Fill the derived columns of a node and return it. With a cache (one per file), each
    distinct signature is canonicalised once."""
    if cache is None:
        derive_kernel_columns(row)
        return row
    key = (row.func_name, repr(row.input_shapes), repr(row.out_shape), row.layouts)
    derived = cache.get(key)
    if derived is None:
        derive_kernel_columns(row)
        cache[key] = tuple(getattr(row, name) for name in DERIVED_COLUMNS)
        if len(cache) > CACHE_KEPT:  # a table of ever new kernels: ~1 KB a key, kept bounded
            del cache[next(iter(cache))]
    else:
        for name, value in zip(DERIVED_COLUMNS, derived):
            setattr(row, name, value)
    return row


def derive_kernel_columns(row) -> None:
    """Kernel family, numbering and logical shapes of a node or graph node, from its
    symbol, output shape and (when known) input shapes and layout attributes."""
    kernel = parse_kernel_name(row.func_name)
    layouts = json.loads(row.layouts) if row.layouts else {}
    if hasattr(row, "kernel_family"):
        row.kernel_family, row.func_base, row.func_number = kernel.family, kernel.base, kernel.number
        out_layout = layouts.get("out_layout") or layouts.get("data_layout")
        logical = logical_output_shape(kernel.family, row.out_shape, out_layout)
        row.out_shape_logical = list(logical) if logical is not None else None
    if row.input_shapes:
        operands = logical_operands(kernel.family, row.input_shapes, layouts, kernel.variant == "winograd")
        if operands is not None:
            row.data_shape_logical, row.weight_shape_logical = list(operands[0]), list(operands[1])
        row.args_flat = flat_dims(list(row.input_shapes) + ([row.out_shape] if row.out_shape is not None else []))
