"""One batch's evolutionary search with a cost model that predicts at random: MetaSchedule's
default against the small search hotdb's tuner uses then (capture/tune/process.py: _search),
in the same process, on ResNet-18's first convolutions.

    python bench/tune_search.py [--tasks 3] [--batches 3]

Prints seconds per `generate_measure_candidates` (2 candidates, a new XGBModel: random
scores before 100 trials), each configuration on each task, and the ratio of medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from tvm.s_tir import meta_schedule as ms

from hotdb.capture.models import load_model
from hotdb.capture.profile import fuse
from hotdb.capture.targets import parse_target
from hotdb.capture.tune.process import RANDOM_MODEL_SEARCH


def batch_seconds(task, strategy, batches: int) -> list[float]:
    with tempfile.TemporaryDirectory() as work:
        (ctx,), _ = ms.relax_integration.extracted_tasks_to_tune_contexts([task], work, strategy=strategy,
                                                                           num_threads="physical")
        spaces = ctx.space_generator.generate_design_space(ctx.mod)
        ctx.search_strategy.pre_tuning(32, 2, spaces, ms.database.MemoryDatabase(), ms.cost_model.XGBModel())
        times = []
        for _ in range(batches):
            started = time.perf_counter()
            ctx.search_strategy.generate_measure_candidates()
            times.append(time.perf_counter() - started)
        return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=3)
    parser.add_argument("--batches", type=int, default=3)
    args = parser.parse_args()
    target = parse_target("llvm")
    tasks = ms.relax_integration.extract_tasks(fuse(load_model("resnet18").mod, target), target)
    convs = [t for t in tasks if "conv2d" in t.task_name][: args.tasks]
    medians = {}
    for name, make in (("default", ms.search_strategy.EvolutionarySearch),
                       ("small", lambda: ms.search_strategy.EvolutionarySearch(**RANDOM_MODEL_SEARCH))):
        seconds = []
        for task in convs:
            times = batch_seconds(task, make(), args.batches)
            seconds += times
            print(f"{name:8} {task.task_name}: " + ", ".join(f"{t:.2f} s" for t in times), flush=True)
        medians[name] = statistics.median(seconds)
    print(f"median a batch: default {medians['default']:.2f} s, small {medians['small']:.2f} s, "
          f"ratio {medians['default'] / medians['small']:.1f}x")


if __name__ == "__main__":
    main()
