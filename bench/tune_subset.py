"""Tuning only the hotspots against tuning everything, on one zoo model on this CPU.

(a) every task, MetaSchedule's own scheduler weighted by static call counts, budget B;
(b) hotdb's coverage-90 subset, weighted by measured runtime share, budget B;
(c) the same subset with 0.4 B.
For each: tuning wall time, trials, end-to-end latency after (database applied and
re-profiled), speedup over the untuned model, and the share of (a)'s speedup reached.

    python bench/tune_subset.py [MODEL] [--trials B] [--also-coverage PCT]...
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from hotdb.api import Hotdb
from hotdb.capture.models import load_model
from hotdb.capture.profile import capture, fuse
from hotdb.capture.targets import parse_target
from hotdb.capture.tune import driver


def tune_all(loaded, target, trials: int, work: Path) -> None:
    """(a): every extracted task, MetaSchedule's scheduler with its static weights."""
    from tvm.s_tir import meta_schedule as ms

    tasks = ms.relax_integration.extract_tasks(fuse(loaded.mod, target), target)
    contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(tasks, str(work), num_threads="physical")
    ms.tune_tasks(tasks=contexts, task_weights=weights, work_dir=str(work), max_trials_global=trials,
                  max_trials_per_task=trials, num_trials_per_iter=driver.trials_per_round(trials, len(tasks), trials),
                  builder=ms.builder.LocalBuilder(max_workers=2), runner=ms.runner.LocalRunner(), cost_model="xgb")


def end_to_end_ms(loaded, target, work: Path) -> float:
    result = capture(loaded, target, repeat=3, apply=driver.applier(work, target))
    return statistics.median(result.run_meta["end_to_end_us"]) / 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?", default="resnet18")
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--also-coverage", type=float, action="append", default=[],
                        help="add a configuration: the subset at this coverage with 0.4 B (repeatable)")
    args = parser.parse_args()
    target = parse_target(None)
    loaded = load_model(args.model)
    root = Path(tempfile.mkdtemp(prefix="hotdb-bench-"))
    db = Hotdb(root / "bench.duckdb")
    db.profile(args.model, repeat=3)
    untuned = statistics.median(db.sql("SELECT end_to_end_us FROM runs ORDER BY run_id LIMIT 1").rows[0][0]) / 1e3
    print(f"model {args.model}, untuned end-to-end {untuned:,.1f} ms, B = {args.trials}", flush=True)
    rows = []
    started = time.perf_counter()
    with open(root / "a.log", "w") as log, contextlib.redirect_stdout(log):  # MetaSchedule's round logs
        tune_all(loaded, target, args.trials, root / "a")
    wall = time.perf_counter() - started
    everything = db.sql("SELECT count(*) FROM model_tasks WHERE tuner = 'meta_schedule' AND model_id = 1").rows[0][0]
    rows.append(("(a) all tasks, static weights", everything, args.trials, wall, end_to_end_ms(loaded, target, root / "a")))
    print("measured", rows[-1], flush=True)
    configurations = [("(b) coverage-90 subset", 90.0, args.trials), ("(c) coverage-90 subset, 0.4 B", 90.0, int(0.4 * args.trials))]
    configurations += [(f"({chr(ord('d') + i)}) coverage-{pct:g} subset, 0.4 B", pct, int(0.4 * args.trials))
                       for i, pct in enumerate(args.also_coverage)]
    for label, coverage, trials in configurations:
        started = time.perf_counter()
        result = db.tune(args.model, coverage=coverage, trials=trials, work_dir=root / label[1], repeat=3)
        wall = time.perf_counter() - started
        rows.append((label, sum(1 for r in result.rows if r[1]), trials, wall, statistics.median(
            db.sql("SELECT end_to_end_us FROM runs ORDER BY run_id DESC LIMIT 1").rows[0][0]) / 1e3))
        print("measured", rows[-1], flush=True)
    tasks = db.sql("SELECT count(*) FROM model_tasks WHERE tuner = 'meta_schedule' AND model_id = 1").rows[0][0]
    print(f"model {args.model}, {tasks} MetaSchedule tasks, untuned end-to-end {untuned:,.1f} ms, B = {args.trials}")
    print("| configuration | tasks tuned | trials | tuning wall time (s) | end-to-end after (ms) | speedup "
          "| speedup / (a)'s | gain / (a)'s gain |")
    print("|---|---|---|---|---|---|---|---|")
    speedup_a = untuned / rows[0][4]
    for label, tuned, trials, wall, after in rows:
        speedup = untuned / after
        print(f"| {label} | {tuned} | {trials} | {wall:,.0f} | {after:,.1f} | {speedup:.2f}x "
              f"| {100 * speedup / speedup_a:.0f} % | {100 * (speedup - 1) / (speedup_a - 1):.0f} % |")


if __name__ == "__main__":
    main()
