"""Write the Relay VM profiler's `get_stat()` table for the bundled VGG-16 build, as TVM
0.7's VirtualMachineProfiler prints it (src/runtime/vm/profiler/vm.cc): names padded to
80 columns, tab-separated, sums and counts over 10 inferences, sorted by time, then the
total line. With `show_shape` (vgg16.shapes.vm_stat.txt) each name is followed by its
argument shapes as the profiler formats them.

Kernels, their calls and modelled times are those of hotdb/examples/make_vgg16.py
(default seed).

    python tests/data/vm-stat/make_stat.py tests/data/vm-stat
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from hotdb.examples.make_vgg16 import build_calls, name_kernels

RUNS = 10


def _shape(shape) -> str:
    return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def write(out: Path) -> None:
    rng = random.Random(16)
    calls = build_calls(rng)
    funcs = name_kernels(calls, prefix="vm_mod_")
    per_kernel: dict[str, list] = {}
    previous = (1, 3, 224, 224)
    for call, func in zip(calls, funcs):
        inputs = [previous, *call.params]  # the activation, then the packed weights (make_vgg16.Call.params)
        previous = call.out_shape
        entry = per_kernel.setdefault(func, [0.0, 0, [], call, inputs])
        for _ in range(RUNS):
            t = call.time_us * rng.uniform(0.97, 1.03)
            entry[0] += t
            entry[1] += 1
            entry[2].append(t)
    rows = sorted(per_kernel.items(), key=lambda kv: -kv[1][0])
    for with_shapes, name in ((False, "vgg16.vm_stat.txt"), (True, "vgg16.shapes.vm_stat.txt")):
        title = "#OpNameNShape" if with_shapes else "#OpName"
        lines = [f"{title:<80}\t{'#InvokeCount':<10}\t#Duration(us): Sum/Mean/Min/Max"]
        total, packed = 0.0, 0
        for func, (s, count, times, call, inputs) in rows:
            label = func
            if with_shapes:
                label += " [" + ",".join(_shape(shape) for shape in inputs) + "]," + _shape(call.out_shape)
            lines.append(f"{label:<80}\t{count:<10}\t{s:g}/{s / count:g}/{min(times):g}/{max(times):g}")
            total += s
            packed += count
        lines.append("")
        lines.append(f"Total Duration: {total:g} us.\tTotal Packed Functions: {packed}")
        (out / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
