"""What a small tune's trials reach when the cost model starts predicting after k trials
instead of 100: the same tasks, trials and seeds, in one process, configurations
interleaved seed by seed.

    python bench/tune_warmup.py [--tasks 6] [--trials 24] [--seeds 6] [--warmups 100,4,12]

MetaSchedule's XGBModel trains on every batch from the first, but it predicts at random
until it has seen `num_warmup_samples` (100) trials; a tune of 32 trials (hotdb's rounds)
never gets there, so its evolutionary search ranks candidates by random scores. Each
configuration here tunes ResNet-18's first `--tasks` convolutions together (one cost
model, round-robin, batches of 2, hotdb's kept builder and small search), and scores a
run by the sum over tasks of calls x best trial (us): the time of those kernels per
inference with what the tune found. Prints each run, then per configuration the median of
its ratio to the first configuration's run with the same seed (above 1: slower kernels).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile

import numpy as np
from tvm.s_tir import meta_schedule as ms

from hotdb.capture.models import load_model
from hotdb.capture.profile import fuse
from hotdb.capture.targets import parse_target
from hotdb.capture.tune.builder import kept_builder
from hotdb.capture.tune.intrinsics import import_intrinsics
from hotdb.capture.tune.process import RANDOM_MODEL_SEARCH
from hotdb.rows import FAILED_RUN_SECS


def run(tasks, warmup: int, trials: int, seed: int, builder) -> float:
    np.random.seed(seed)  # XGBModel's random scores
    with tempfile.TemporaryDirectory() as work:
        contexts, _ = ms.relax_integration.extracted_tasks_to_tune_contexts(
            tasks, work, strategy=ms.search_strategy.EvolutionarySearch(**RANDOM_MODEL_SEARCH),
            num_threads="physical", seed=seed)
        database = ms.database.MemoryDatabase()
        ms.tune_tasks(tasks=contexts, task_weights=[float(t.weight) for t in tasks], work_dir=work,
                      max_trials_global=trials, num_trials_per_iter=2, database=database,
                      cost_model=ms.cost_model.XGBModel(num_warmup_samples=warmup, num_tuning_cores=2,
                                                        tree_method="auto"),
                      builder=builder, runner=ms.runner.LocalRunner(timeout_sec=30),
                      task_scheduler="round-robin")
        total_us = 0.0
        for task, ctx in zip(tasks, contexts):
            top = database.get_top_k(database.commit_workload(ctx.mod), 1)
            secs = [float(s) for s in top[0].run_secs] if top else []
            best = sum(secs) / len(secs) if secs and min(secs) < FAILED_RUN_SECS else None
            if best is None:
                raise RuntimeError(f"{task.task_name}: no valid trial in this run; raise --trials")
            total_us += task.weight * best * 1e6
        return total_us


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--warmups", default="100,4,12", help="num_warmup_samples per configuration; the first is the baseline")
    args = parser.parse_args()
    warmups = [int(w) for w in args.warmups.split(",")]
    target = parse_target("llvm")
    import_intrinsics("llvm")
    extracted = ms.relax_integration.extract_tasks(fuse(load_model("resnet18").mod, target), target)
    tasks = [t for t in extracted if "conv2d" in t.task_name][: args.tasks]
    builder = kept_builder(2, 60.0, "llvm")
    builder.start()
    totals: dict[int, list[float]] = {w: [] for w in warmups}
    for seed in range(1, args.seeds + 1):
        for warmup in warmups:
            total = run(tasks, warmup, args.trials, seed, builder)
            totals[warmup].append(total)
            print(f"seed {seed} warmup {warmup:3}: {total:,.0f} us", flush=True)
    base = totals[warmups[0]]
    for warmup in warmups:
        ratios = [t / b for t, b in zip(totals[warmup], base)]
        print(f"warmup {warmup:3}: median {statistics.median(totals[warmup]):,.0f} us, ratio to warmup "
              f"{warmups[0]}: median {statistics.median(ratios):.2f} (" + ", ".join(f"{r:.2f}" for r in ratios) + ")")
    builder.close()


if __name__ == "__main__":
    main()
