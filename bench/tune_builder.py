"""Building a batch of trials: MetaSchedule's LocalBuilder (a fresh pool of worker processes
every batch) against hotdb's kept builder (capture/tune/builder.py: the workers live as long as
the tuner), in the same process, on ResNet-18's hottest convolution.

    python bench/tune_builder.py [--batches 6]

Each builder gets the same candidates: the batches of 2 that one small search drew
(the search hotdb's tuner makes while the cost model is untrained), built one batch at a
time. Prints seconds per batch, the first batch apart (the kept builder's workers import
TVM's intrinsics then, as LocalBuilder's do every batch), and the ratio of the medians of
the rest; the kept workers' resident memory after the last batch.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import psutil
from tvm.s_tir import meta_schedule as ms

from hotdb.capture.models import load_model
from hotdb.capture.profile import fuse
from hotdb.capture.targets import parse_target
from hotdb.capture.tune.builder import kept_builder
from hotdb.capture.tune.process import BUILD_WORKERS, RANDOM_MODEL_SEARCH


def candidates(task, batches: int, target) -> list[list[ms.builder.BuilderInput]]:
    """`batches` batches of 2 schedules of `task`, as builder inputs."""
    with tempfile.TemporaryDirectory() as work:
        (ctx,), _ = ms.relax_integration.extracted_tasks_to_tune_contexts(
            [task], work, strategy=ms.search_strategy.EvolutionarySearch(**RANDOM_MODEL_SEARCH),
            num_threads="physical")
        spaces = ctx.space_generator.generate_design_space(ctx.mod)
        ctx.search_strategy.pre_tuning(2 * batches, 2, spaces, ms.database.MemoryDatabase(), ms.cost_model.XGBModel())
        drawn = []
        for _ in range(batches):
            found = ctx.search_strategy.generate_measure_candidates()
            drawn.append([ms.builder.BuilderInput(c.sch.mod, target) for c in found])
            ctx.search_strategy.notify_runner_results(found, [ms.runner.RunnerResult([1.0], None) for _ in found])
        return drawn


def seconds_a_batch(builder, batches) -> list[float]:
    times = []
    for inputs in batches:
        started = time.perf_counter()
        results = builder.build(inputs)
        times.append(time.perf_counter() - started)
        failed = [r.error_msg for r in results if r.error_msg]
        assert not failed, failed[0][:400]
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=6)
    args = parser.parse_args()
    target = parse_target("llvm")
    tasks = ms.relax_integration.extract_tasks(fuse(load_model("resnet18").mod, target), target)
    task = max(tasks, key=lambda t: t.weight if "conv2d" in t.task_name else 0)
    batches = candidates(task, args.batches, target)
    print(f"{task.task_name}: {args.batches} batches of {len(batches[0])} candidates", flush=True)
    local = ms.builder.LocalBuilder(max_workers=BUILD_WORKERS, timeout_sec=120)
    kept = kept_builder(BUILD_WORKERS, 120, "cuda")  # every intrinsic, as LocalBuilder's workers import
    medians = {}
    for name, builder in (("LocalBuilder", local), ("kept", kept)):
        times = seconds_a_batch(builder, batches)
        medians[name] = statistics.median(times[1:])
        print(f"{name:12} first {times[0]:.1f} s, then " + ", ".join(f"{t:.1f}" for t in times[1:])
              + f" s (median {medians[name]:.2f} s)", flush=True)
    workers = [c for c in psutil.Process().children() if "popen_worker" in " ".join(c.cmdline())]
    print("kept workers' resident memory: " + ", ".join(f"{w.memory_info().rss / 2**20:.0f} MiB" for w in workers))
    kept.close()
    print(f"median a batch after the first: LocalBuilder {medians['LocalBuilder']:.2f} s, "
          f"kept {medians['kept']:.2f} s, ratio {medians['LocalBuilder'] / medians['kept']:.1f}x")


if __name__ == "__main__":
    main()
