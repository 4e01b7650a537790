"""TVM's tensor intrinsics, imported without the GPUs' where the target is a CPU.

MetaSchedule imports `tvm.s_tir.tensor_intrin` in every TuneContext and in every build
worker, and that package imports CUDA's intrinsics first, whatever the target: 16.8 s of
its 24.5-25.6 s here (`python -X importtime -c "import tvm.s_tir.tensor_intrin"`), paid by
the tuner process and by each of its two build workers, on 2 cores, before the first
trial (ROCm's and Hexagon's add ~4 s). A tune for a CPU target never tensorizes with
them, so there the tuner and its workers put a stand-in under each module's name first:
the package imports the rest (x86, arm_cpu, riscv_cpu) as it does, and anything that
reaches for a left-out intrinsic is told why it is missing.
"""

from __future__ import annotations

import importlib
import sys
import types

INTRINSICS = "tvm.s_tir.tensor_intrin"
CPU_KINDS = frozenset({"llvm", "c"})  # target kinds that never tensorize with the intrinsics below
LEFT_OUT = ("cuda", "rocm", "hexagon")  # for a CPU target: the GPUs' and Hexagon's


def import_intrinsics(target_kind: str) -> None:
    """Import TVM's tensor intrinsics, for a CPU target without LEFT_OUT's. Run in the
    tuner before its first TuneContext, and as each build worker's initializer."""
    if target_kind in CPU_KINDS and INTRINSICS not in sys.modules:
        for name in LEFT_OUT:
            sys.modules.setdefault(f"{INTRINSICS}.{name}", _stand_in(f"{INTRINSICS}.{name}"))
    importlib.import_module(INTRINSICS)


def _stand_in(module_name: str) -> types.ModuleType:
    module = types.ModuleType(module_name, "Not imported: hotdb's tuner for a CPU target (hotdb/capture/tune/intrinsics.py).")

    def __getattr__(name: str):
        raise AttributeError(f"{module_name}.{name}: these tensor intrinsics are not imported by hotdb's tuner "
                             "for a CPU target (hotdb/capture/tune/intrinsics.py)")

    module.__getattr__ = __getattr__
    return module
