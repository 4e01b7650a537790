"""MetaSchedule tasks of a fused Relax module, as typed rows.

Each task keeps MetaSchedule's name (the PrimFunc symbol the VM calls), its weight
(calls per inference), structural hash, anchor block and argument shapes. Its canonical
workload is derived from the argument shapes where they determine it: dense and matmul
always; a convolution when exactly one stride and symmetric padding explain its output
size (dilation 1), which is what the IR's own conv2d attributes are checked against.
"""

from __future__ import annotations

import json

from hotdb.ingest.rows import Parsed, TaskRow
from hotdb.workload import WorkloadError, conv_workload, dense_workload, flat_dims, logical_operands
from hotdb.workload.families import sblock_family


def task_rows(fused, target) -> Parsed:
    import tvm_ffi
    from tvm import s_tir
    from tvm.s_tir import meta_schedule as ms

    parsed = Parsed(role="tasks")
    for index, task in enumerate(ms.relax_integration.extract_tasks(fused, target)):
        prim = task.dispatched[0]
        func = prim[prim.get_global_vars()[0]]
        args = [(list(int(d) for d in a.shape), str(a.dtype)) for a in ms.arg_info.ArgInfo.from_prim_func(func)]
        anchor = s_tir.analysis.find_anchor_sblock(prim)
        block = anchor.name_hint if anchor is not None else None
        row = TaskRow(task_index=index, tuner="meta_schedule", task_name=str(task.task_name),
                      task_args=json.dumps([["TENSOR", s, d] for s, d in args]), task_kwargs=None,
                      target=json.dumps(dict(target.export()), sort_keys=True, default=str), line_no=0,
                      op_family=sblock_family(block) if block else None, variant=block,
                      args_flat=flat_dims([s for s, _ in args]), weight=int(task.weight),
                      structural_hash=str(tvm_ffi.structural_hash(prim) & 0xFFFFFFFFFFFFFFFF))
        workload = infer_workload(row.op_family, args)
        if workload is not None:
            row.op_family, row.workload_key = workload.family, parsed.add_workload(workload)
            row.out_shape_logical = list(workload.out)
        parsed.tasks.append(row)
    return parsed


def infer_workload(family: str | None, args: list[tuple[list[int], str]]):
    """The canonical workload of a kernel from its argument shapes alone, or None."""
    if family is None or len(args) < 3 and family not in ("matmul", "dense"):
        return None
    shapes, dtype = [s for s, _ in args], args[0][1]
    try:
        if family in ("matmul", "dense") and len(shapes) >= 3 and len(shapes[0]) == 2 and len(shapes[1]) == 2:
            (m, k), w = shapes[0], shapes[1]
            weight = (w[1], w[0]) if w[0] == k else tuple(w)  # Relax passes the weight as (K, N)
            return dense_workload((m, k), weight, dtype)
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
