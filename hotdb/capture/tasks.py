"""MetaSchedule tasks of a fused Relax module, as typed rows.

Each task keeps MetaSchedule's name (the PrimFunc symbol the VM calls), its weight
(calls per inference), structural hash, anchor block and argument shapes; its canonical
workload comes from the argument shapes where they determine it (`from_kernel_args`).
"""

from __future__ import annotations

import json

from hotdb.rows import Parsed, TaskRow
from hotdb.rows.derive import attach_workload
from hotdb.workload import flat_dims, from_kernel_args
from hotdb.workload.families import sblock_family
from hotdb.workload.targets import canonical as canonical_target


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
                      target=canonical_target(target), line_no=0,
                      op_family=sblock_family(block) if block else None, variant=block,
                      args_flat=flat_dims([s for s, _ in args]), weight=int(task.weight),
                      structural_hash=str(tvm_ffi.structural_hash(prim) & 0xFFFFFFFFFFFFFFFF))
        attach_workload(parsed, row, from_kernel_args(row.op_family, args))
        parsed.tasks.append(row)
    return parsed
