"""hotdb's task scheduler against MetaSchedule's gradient scheduler, and nothing else.

Both tune the same tasks (the 90 % coverage cut of a fresh profile), with the same
weights (the measured shares), trial budget, batch size, builder, runner and cost model,
in this process one after the other; only the task scheduler differs. A thread reads the
work folder's records every --every seconds. The figure of merit needs no re-profile: the
model's *projected* tunable time at that moment, each task at its calls times its best
record so far, or at its measured untuned time while it has none (what `top --projected`
computes). Lower is better; the first time it drops is when a record first landed.

    python bench/tune_scheduler.py [MODEL] [--trials B] [--every SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

from hotdb.api import Hotdb
from hotdb.capture.models import load_model
from hotdb.capture.profile import fuse
from hotdb.capture.targets import parse_target
from hotdb.capture.tune import driver
from hotdb.capture.tune.scheduler import Policy, TaskState, scheduler
from hotdb.ops.tune import select


def projected_ms(work: Path, tasks, hashes: dict[str, str]) -> float:
    """Σ over tasks of calls x best record (or the untuned time): the time the tuned tasks
    would take in one run, ms."""
    best = driver.best_by_hash(work)
    total = 0.0
    for t in tasks:
        record = best.get(hashes[t["task_name"]])
        total += min(t["time_us"], t["calls"] * record * 1e6) if record else t["time_us"]
    return total / 1e3


def run(kind: str, loaded, target, chosen, trials: int, batch: int, work: Path, every: float):
    import logging

    from tvm.s_tir import meta_schedule as ms

    for handler in list(logging.getLogger("tvm.s_tir.meta_schedule").handlers):  # the last tune's, closed
        logging.getLogger("tvm.s_tir.meta_schedule").removeHandler(handler)
    extracted = {t.task_name: t for t in ms.relax_integration.extract_tasks(fuse(loaded.mod, target), target)}
    tasks = [extracted[r["task_name"]] for r in chosen]
    contexts, _ = ms.relax_integration.extracted_tasks_to_tune_contexts(tasks, str(work), num_threads="physical")
    shares = [float(r["task_share_pct"]) for r in chosen]
    if kind == "hotdb":
        policy = Policy([TaskState(r["task_name"], float(r["time_us"]), int(t.weight)) for r, t in zip(chosen, tasks)],
                        per_task_max=trials, budget=trials)
        task_scheduler, global_trials = scheduler(policy), trials + 1
    else:
        task_scheduler, global_trials = "gradient", trials
    hashes = {r["task_name"]: r["structural_hash"] for r in chosen}
    curve, done = [], threading.Event()
    started = time.perf_counter()

    def sample() -> None:
        while not done.wait(every):
            curve.append((time.perf_counter() - started, projected_ms(work, chosen, hashes)))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    ms.tune_tasks(tasks=contexts, task_weights=shares, work_dir=str(work), max_trials_global=global_trials,
                  max_trials_per_task=trials, num_trials_per_iter=batch,
                  builder=ms.builder.LocalBuilder(max_workers=2, timeout_sec=120),
                  runner=ms.runner.LocalRunner(timeout_sec=60), cost_model="xgb", task_scheduler=task_scheduler)
    done.set()
    thread.join()
    curve.append((time.perf_counter() - started, projected_ms(work, chosen, hashes)))
    return curve


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?", default="resnet18")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--every", type=float, default=30.0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hotdb-scheduler-"))
    db = Hotdb(root / "hotdb.duckdb")
    db.profile(args.model, repeat=3)
    with db.database.reader() as store:
        run_id = store.con.execute("SELECT max(run_id) FROM runs").fetchone()[0]
    chosen = select(db.database, run_id, 90.0, "tunable")
    batch = driver.trials_per_round(args.trials, len(chosen), args.trials)
    untuned = sum(r["time_us"] for r in chosen) / 1e3
    target, loaded = parse_target(None), load_model(args.model)
    print(f"{args.model}: {len(chosen)} tasks in the 90 % cut, untuned {untuned:,.1f} ms of tunable time, "
          f"B = {args.trials}, batches of {batch}", flush=True)
    curves = {}
    for kind in ("gradient", "hotdb"):
        work = root / kind
        work.mkdir()
        with open(root / f"{kind}.log", "w") as log, contextlib.redirect_stdout(log):
            curves[kind] = run(kind, loaded, target, chosen, args.trials, batch, work, args.every)
        first = next((s for s, v in curves[kind] if v < untuned * 0.999), None)
        print(f"{kind}: wall {curves[kind][-1][0]:,.0f} s, first record landed by {first and round(first)} s, "
              f"projected {curves[kind][-1][1]:,.1f} ms at the end", flush=True)
    print("\n| wall time (s) | gradient: projected ms | hotdb: projected ms |\n|---|---|---|")
    times = sorted({round(s) for c in curves.values() for s, _ in c})
    for t in times:
        cells = [next((v for s, v in reversed(c) if s <= t), untuned) for c in curves.values()]
        print(f"| {t} | {cells[0]:,.1f} | {cells[1]:,.1f} |")
    json.dump({"untuned_ms": untuned, "curves": curves}, sys.stderr)


if __name__ == "__main__":
    main()
