"""The tuner for a CPU target imports TVM's tensor intrinsics without the GPUs' and
Hexagon's (hotdb/capture/tune/intrinsics.py): the CPU ones are registered as TVM registers
them, and a left-out one says why it is missing. In a process of its own: an import is
for the life of a process."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

PROBE = """
import sys
from hotdb.capture.tune.intrinsics import LEFT_OUT, import_intrinsics
import_intrinsics("llvm")
from tvm.s_tir import TensorIntrin
from tvm.s_tir.tensor_intrin import x86
assert TensorIntrin.get(x86.VNNI_DOT_16x4_INTRIN) is not None
for name in LEFT_OUT:  # stand-ins, not TVM's files
    assert not hasattr(sys.modules["tvm.s_tir.tensor_intrin." + name], "__file__"), name
try:
    TensorIntrin.get("mma_ldmatrix_f16_a")
    raise SystemExit("a CUDA intrinsic was registered")
except ValueError:
    pass
try:
    from tvm.s_tir.tensor_intrin.cuda import LDMATRIX_f16_A_INTRIN
    raise SystemExit("the stand-in gave a name")
except ImportError as exc:
    print(exc)
"""


def test_a_cpu_tuner_leaves_the_gpu_intrinsics_out():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "cannot import name 'LDMATRIX_f16_A_INTRIN'" in done.stdout
