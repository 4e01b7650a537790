"""Kernel-time tables of our own making, from the bundled VGG-16 example
(hotdb/examples/vgg16/vgg16.debug_table.txt), printed by the rules of the printers that
SOURCES.md names: MLC-LLM's `print_as_table` (mean per call in ms, count, total, percent;
names ljust(50), so the 59-character TVM names run into the time), its deploy script's
`--profile` table (with Pct, Memory, Bandwidth and Shape columns), and the debug table kept
in a shell script's `# ` comments.

    python tests/data/kernel-table/make_fixtures.py [OUT_FOLDER]   # default: made/ beside this file
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parents[3] / "hotdb" / "examples" / "vgg16" / "vgg16.debug_table.txt"
# VGG-16's classifier, as a Relax build names its kernels: (name, mean ms, count, argument shapes, output last)
CLASSIFIER = [
    ("fused_matmul_add_relu", 3.1416, 1, [(1, 25088), (25088, 4096), (4096,), (1, 4096)]),
    ("fused_matmul1_add1_relu1", 0.5271, 1, [(1, 4096), (4096, 4096), (4096,), (1, 4096)]),
    ("fused_matmul2_add2", 0.1309, 1, [(1, 4096), (4096, 1000), (1000,), (1, 1000)]),
    ("max_pool2d", 0.0213, 1, [(1, 64, 224, 224), (1, 64, 112, 112)]),
    ("softmax", 0.0042, 1, [(1, 1000), (1, 1000)]),
]


def kernels() -> list[tuple[str, float, int]]:
    """(function, mean seconds per call, calls) of the example table: its nodes grouped by `Ops`."""
    calls: dict[str, list[float]] = {}
    for line in TABLE.read_text().splitlines()[2:]:
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] != "Total_time":
            calls.setdefault(cells[1], []).append(float(cells[2]) / 1e6)
    return [(name, sum(t) / len(t), len(t)) for name, t in calls.items()]


def mlc_table(records: list[tuple[str, float, int]]) -> list[str]:
    """print_as_table (mlc-llm tests/debug/compare_lib.py): sorted by total, longest first."""
    records = sorted(records, key=lambda r: -(r[1] * r[2]))
    total_ms = sum(mean * count for _, mean, count in records) * 1000
    lines = ["Name".ljust(50) + "Time (ms)".ljust(12) + "Count".ljust(8) + "Total time (ms)".ljust(18) + "Percentage (%)"]
    for name, mean, count in records:
        ms = mean * 1000
        lines.append(name.ljust(50) + f"{ms:.4f}".ljust(12) + str(count).ljust(8) + f"{ms * count:.4f}".ljust(18)
                     + f"{ms * count / total_ms * 100:.2f}")
    return lines + [f"Total time: {total_ms:.4f} ms", ""]


def profile_table() -> list[str]:
    """The deploy script's `--profile` table: two more columns of memory, then every shape."""
    total = sum(ms * count for _, ms, count, _ in CLASSIFIER)
    lines = ["=" * 23 + " Encoding Profiling " + "=" * 23,
             "Name".ljust(50) + "Time (ms)".ljust(12) + "Count".ljust(8) + "Total time (ms)".ljust(18) + "Pct (%)".ljust(10)
             + "Memory (MB)".ljust(16) + "Bandwidth (GB/s)".ljust(18) + "Shape"]
    for name, ms, count, shapes in CLASSIFIER:
        mb = sum(4 * eval_size(s) for s in shapes) / 2**20
        lines.append(name.ljust(50) + f"{ms:.4f}".ljust(12) + str(count).ljust(8) + f"{ms * count:.4f}".ljust(18)
                     + f"{ms * count / total * 100:.2f}".ljust(10) + f"{mb:.2f}".ljust(16) + f"{mb / 1024 / ms * 1000:.4f}".ljust(18)
                     + ", ".join(map(str, shapes)))
    return lines + [f"Total time: {total:.4f} ms", ""]


def eval_size(shape: tuple[int, ...]) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


def shell_script() -> list[str]:
    """A script whose comments hold what each command printed: the example table behind `# `."""
    table = TABLE.read_text().splitlines()
    return (["#!/bin/sh", "# Profile VGG-16 with the debug executor; output kept below.", "set -e", "",
             "python3 run_vgg16.py --debug", "# >>>", "# Loading model...", "#"]
            + ["# " + line for line in table]
            + ["# <<<", "", "python3 run_vgg16.py --repeat 10", "# >>>", "# Execution time summary:",
               "#  mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)", "#   501.8349     501.2210     "
               "509.0113     498.9003       2.9921", "# <<<", ""])


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    files = {"vgg16_mlc_table.txt": ["======================= Starts Decoding ======================="] + mlc_table(kernels()),
             "vgg16_classifier_profile.txt": profile_table(),
             "vgg16_debug_table_in_comments.sh": shell_script()}
    for name, lines in files.items():
        (out / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "made")
