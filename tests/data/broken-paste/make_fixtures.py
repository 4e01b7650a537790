"""Write pastes in which one artifact is broken the way people break them, beside one that
is whole: the paste must store the whole one and name the broken one (pipeline.py).

* convnet_elided_signature.txt: a question about tuning the small conv-conv-dense net of
  tests/data/relax/ (apache-tvm 0.27's own print of it). The Relax module is pasted with
  its weight parameters elided as `...` (the signature no longer reads: "expected a
  parameter name"), and MetaSchedule's task-scheduler table of the same build follows:
  its three tasks, named after the fused module's PrimFuncs, printed by the rules of
  PrintTuningStatistics (src/s_tir/meta_schedule/task_scheduler/task_scheduler.cc: right-
  aligned cells between ` | `, a rule of dashes under the header and after the rows, then
  `Total trials` and `Total latency (us)`). FLOPs are the PrimFuncs' multiply-adds (two
  each) and element-wise ops; latencies and trials are made up. The prose is ours.

    python tests/data/broken-paste/make_fixtures.py tests/data/broken-paste
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RELAX = HERE.parent / "relax" / "small_convnet.relax.py"

# (name, FLOP, weight, latency us, trials): FLOPs as 2 per multiply-add plus one per
# element of each add and relu (MetaSchedule's estimate counts both)
TASKS = [
    ("fused_conv2d_add_relu", 2 * 16 * 8 * 8 * 3 * 3 * 3 + 2 * 16 * 8 * 8, 1, 11.8062, 64),
    ("fused_conv2d1_add_relu", 2 * 16 * 8 * 8 * 16 * 3 * 3 + 2 * 16 * 8 * 8, 1, 38.4407, 64),
    ("fused_matmul_add1", 2 * 10 * 1024 + 10, 1, 3.1259, 32),
]
HEADER = ["ID", "Name", "FLOP", "Weight", "Speed (GFLOPS)", "Latency (us)", "Weighted Latency (us)", "Trials", "Done"]


def tuning_table() -> list[str]:
    rows = [[str(i), name, str(flop), str(weight), f"{flop / latency / 1e3:.4f}", f"{latency:.4f}",
             f"{latency * weight:.4f}", str(trials), "Y"]
            for i, (name, flop, weight, latency, trials) in enumerate(TASKS)]
    widths = [max(len(row[c]) for row in [HEADER] + rows) for c in range(len(HEADER))]
    line = lambda cells: " " + " | ".join(cell.rjust(width) for cell, width in zip(cells, widths))  # noqa: E731
    rule = "-" * len(line(HEADER))
    total_us = sum(latency * weight for _, _, weight, latency, _ in TASKS)
    return [line(HEADER), rule, *map(line, rows), rule,
            f"Total trials: {sum(t[-1] for t in TASKS)}", f"Total latency (us): {total_us:g}"]


def elided_module() -> list[str]:
    """The module as printed, its function's weights elided after the input: `...`."""
    lines = RELAX.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def forward("))
    lines[at] = re.sub(r'(def forward\(x: R\.Tensor\(\([^)]*\), dtype="float32"\)), .*?\) ->', r"\1, ...) ->", lines[at])
    return lines


def convnet_elided_signature() -> str:
    return "\n".join([
        "I am tuning a small convnet with MetaSchedule on CPU. This is the module (I cut the",
        "weights from the signature, they are the usual conv and fc parameters):",
        "",
        *elided_module(),
        "",
        "and this is what the tuner printed at the end:",
        "",
        *tuning_table(),
        "",
        "The second convolution is still 3x slower than the first one. Is 64 trials too few?",
    ]) + "\n"


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "convnet_elided_signature.txt").write_text(convnet_elided_signature())


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
