"""Canonical workloads: pure functions, no I/O, no database (docs/design.md, "Layers")."""

from hotdb.workload.autotvm import from_autotvm_task
from hotdb.workload.families import KernelName, parse_kernel_name, relay_op_family, task_template
from hotdb.workload.keys import (
                                 Workload,
                                 WorkloadError,
                                 batch_matmul_workload,
                                 conv_workload,
                                 dense_workload,
                                 flat_dims,
                                 from_kernel_args,
                                 from_relay_call,
                                 logical_operands,
                                 logical_output_shape,
)
from hotdb.workload.layouts import LayoutError, unpack

__all__ = [
    "KernelName", "LayoutError", "Workload", "WorkloadError", "batch_matmul_workload",
    "conv_workload", "dense_workload", "flat_dims", "from_autotvm_task", "from_kernel_args", "logical_operands", "from_relay_call",
    "logical_output_shape", "parse_kernel_name", "relay_op_family", "task_template", "unpack",
]
