"""What a kernel's symbol and shapes say about it: family, numbering, logical shapes.

Ingestors call `derive` on every node they read (and `derive_kernel_columns` on graph
nodes); the canonicalisation itself is hotdb/workload/ (pure).
"""

from __future__ import annotations

import json

from hotdb.workload import flat_dims, logical_operands, logical_output_shape, parse_kernel_name

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
