"""Fidelity of live capture: do the per-kernel times add up to the measured model?

For every zoo model (or those named), one capture on this machine's CPU, and three
figures from the same process:

* end-to-end median: the VM's own time_evaluator on the whole model (no instrument);
* hotdb's method: the sum over kernel calls of the median of time_evaluator samples of
  that kernel with that call's shapes;
* baseline: the sum over kernel calls of what the Python instrument callback measured
  around each call (one instrumented run; includes the callback's overhead).

    python bench/fidelity.py [MODEL ...] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from hotdb.capture.models import load_model
from hotdb.capture.profile import capture
from hotdb.capture.targets import parse_target
from hotdb.capture.zoo import ZOO


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*", default=list(ZOO))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    target = parse_target(None)
    print(f"target {target}")
    print("| model | kernel calls | end-to-end median (ms) | hotdb: sum of kernel medians (ms) | ratio | "
          "baseline: instrumented sum (ms) | ratio | capture wall time (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models:
        started = time.perf_counter()
        result = capture(load_model(name), target, repeat=args.repeat)
        wall = time.perf_counter() - started
        e2e = statistics.median(result.run_meta["end_to_end_us"]) / 1e3
        kernels = [n for n in result.profile.nodes if n.is_kernel]
        total = sum(n.time_us for n in kernels) / 1e3
        instrumented = result.instrumented_kernel_us / 1e3
        print(f"| {name} | {len(kernels)} | {e2e:,.2f} | {total:,.2f} | {total / e2e:.3f} | "
              f"{instrumented:,.2f} | {instrumented / e2e:.3f} | {wall:.0f} |", flush=True)


if __name__ == "__main__":
    main()
