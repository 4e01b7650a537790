"""MetaSchedule, as hotdb's tune drives it (hotdb/ops/tune.py says what is tuned and why).

MetaSchedule tunes the selected tasks only, its gradient task scheduler weighted by each
task's measured share of runtime (not by static call counts), within one trial budget;
the JSON database stays in the work folder. The database is applied to the fused module
with MetaScheduleApplyDatabase inside the target and database context: re-running the
pipeline on a fused module would silently apply nothing.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from hotdb.errors import UsageError


@dataclass
class TunePlan:
    task_names: list[str]
    shares_pct: list[float]
    trials: int
    per_task_max: int


def trials_per_round(trials: int, tasks: int, per_task_max: int) -> int:
    """MetaSchedule's scheduler starts with one round on every task: keep that round within
    the budget, so that the weights, not the warm-up, decide where the trials go."""
    return max(2, min(64, per_task_max, trials // (2 * tasks)))


def tune(loaded, target, tune_plan: TunePlan, work_dir: Path, progress=None) -> bool:
    """Tune the planned tasks of `loaded` into work_dir. Returns False when interrupted."""
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.profile import fuse

    work_dir.mkdir(parents=True, exist_ok=True)
    fused = fuse(loaded.mod, target)
    extracted = {t.task_name: t for t in ms.relax_integration.extract_tasks(fused, target)}
    missing = [n for n in tune_plan.task_names if n not in extracted]
    if missing:
        raise UsageError(f"tasks {', '.join(missing)} are not in the model as compiled now: "
                         "the model or TVM changed since the baseline run; profile it again")
    tasks = [extracted[n] for n in tune_plan.task_names]
    log = open(work_dir / "tune.log", "a", encoding="utf-8")
    with contextlib.redirect_stdout(log):  # MetaSchedule logs every round to stdout: keep it in the work folder
        contexts, _ = ms.relax_integration.extracted_tasks_to_tune_contexts(tasks, str(work_dir), num_threads="physical")
    records = work_dir / "database_tuning_record.json"
    done = threading.Event()

    def watch() -> None:  # MetaSchedule has no progress callback: count its records
        while not done.wait(1.0):
            if progress and records.exists():
                progress("trials", min(sum(1 for _ in records.open()), tune_plan.trials), tune_plan.trials)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with contextlib.redirect_stdout(log):
            ms.tune_tasks(tasks=contexts, task_weights=tune_plan.shares_pct, work_dir=str(work_dir),
                          max_trials_global=tune_plan.trials, max_trials_per_task=tune_plan.per_task_max,
                          num_trials_per_iter=trials_per_round(tune_plan.trials, len(tasks), tune_plan.per_task_max),
                          builder=ms.builder.LocalBuilder(max_workers=2), runner=ms.runner.LocalRunner(),
                          cost_model="xgb")
        finished = True
    except KeyboardInterrupt:
        finished = False
    finally:
        done.set()
        watcher.join()
        _release_log(log)
    if progress:
        count = sum(1 for _ in records.open()) if records.exists() else 0
        progress("trials", count, max(count, tune_plan.trials))
    return finished


def _release_log(log) -> None:
    """MetaSchedule's stream handlers were bound to our log file: point them at stderr,
    warnings only, before the file closes."""
    for logger in [logging.getLogger()] + [logging.getLogger(n) for n in list(logging.root.manager.loggerDict)]:
        for handler in getattr(logger, "handlers", []):
            if isinstance(handler, logging.StreamHandler) and handler.stream is log:
                handler.setStream(sys.stderr)
                handler.setLevel(logging.WARNING)
    log.close()


def applier(work_dir: Path, target):
    """A function applying work_dir's database to a fused module, so that it applies."""
    import tvm
    from tvm import relax
    from tvm.s_tir import meta_schedule as ms

    def apply(fused):
        database = ms.database.JSONDatabase(work_dir=str(work_dir))
        with target, database, tvm.transform.PassContext(opt_level=3):
            return relax.transform.MetaScheduleApplyDatabase()(fused)

    return apply
