"""Write an auto_scheduler (Ansor) tuning log for the kernels of the ResNet-50 NHWC report
beside it (tests/data/profile-report/make_reports.py): one task a kernel with a tunable
anchor, keyed as auto_scheduler keys a Relay workload (`["<hash>", <every argument's dims,
flattened, output last>]`, the v0.6 form), two records a task (the second one failed,
error_no 1). The hashes are made up (md5 of the kernel symbol); the steps and costs too.
The layout transform and the max pooling have no task, as in a real tune.

    python tests/data/ansor-log/make_log.py tests/data/ansor-log
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = "llvm -keys=cpu -mcpu=core-avx2"
STEPS = [["SP", 3, 0, 1, [1, 1, 1], 1], ["RE", 3, [0, 1, 2]], ["AN", 3, 0, 3], ["PR", 3, 0, "auto_unroll_max_step$64"]]


def kernels():
    spec = importlib.util.spec_from_file_location("make_reports", HERE.parent / "profile-report" / "make_reports.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KERNELS


def records():
    lines = []
    for symbol, shapes, duration_us, _calls, _layouts in kernels():
        if "layout_transform" in symbol or "max_pool" in symbol:
            continue
        key = json.dumps([hashlib.md5(symbol.encode()).hexdigest()] + [d for shape in shapes for d in shape])
        for error_no, cost_s in ((0, duration_us * 0.6e-6), (1, 1e10)):
            lines.append(json.dumps({"i": [[key, TARGET, [2, 64, 64, 0, 0, 0, 0, 0], "", 2], [[], STEPS]],
                                     "r": [[cost_s], error_no, 1.25, 1675066859], "v": "v0.6"}))
    return lines


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    (out / "resnet50_nhwc.ansor.json").write_text("\n".join(records()) + "\n")
