"""Tune only the hotspots: MetaSchedule on the tasks a coverage cut selects.

1. The baseline is the model's latest untuned run for this target (profiled first if
   none): queries/commands/baseline_run.sql.
2. Its coverage cut selects MetaSchedule tasks (queries/commands/export_selection.sql).
3. MetaSchedule tunes those tasks only, weighted by measured share (capture/tuning.py).
4. The database is applied, the model is re-profiled as a new run linked to its baseline,
   the database is ingested, and the two runs are compared (tune_compare.sql).

Ctrl-C during tuning keeps the records written so far and goes on to step 4.
"""

from __future__ import annotations

import re
from pathlib import Path

from hotdb.errors import CaptureError, HotdbError, TuneFailed, UsageError
from hotdb.result import Result
from hotdb.store.database import Database, query, value
from hotdb.workload.targets import canonical as canonical_target


# Per-trial limits. On this project's 2-core machine, building a batch of two MLP trials
# took 10-15 s idle and 37-39 s beside two busy processes, where MetaSchedule's default of
# 30 s failed every trial (bench/README.md, "Tuning on a busy machine"); running one took
# about 1 s.
BUILD_TIMEOUT_S = 120.0
RUN_TIMEOUT_S = 60.0


def plan(selection: list[dict], trials: int, per_task_max: int | None):
    """The tasks to tune and their weights: the MetaSchedule tasks the run's kernels act
    through (one per fused function: a workload fused with two epilogues is two tasks),
    each weighted by its own kernels' share of runtime."""
    from hotdb.capture.tuning import TunePlan

    rows = [r for r in selection if r["tuner"] == "meta_schedule" and r["task_name"] and r["chosen"]]
    if not rows:
        raise UsageError("the coverage cut selects no MetaSchedule task of this run; profile the model "
                         "(a live profile extracts MetaSchedule tasks) and try again")
    if trials < len(rows):
        raise UsageError(f"a budget of {trials} trials is fewer than the {len(rows)} selected tasks; "
                         "give each at least one")
    return TunePlan([r["task_name"] for r in rows], [float(r["task_share_pct"]) for r in rows], trials,
                    per_task_max or trials)


def baseline(database: Database, model_name: str, target_json: str | None, ir_sha256: str | None) -> tuple[int, str] | None:
    """(run_id, label) of the run a tune starts from, or None when the model has none."""
    try:
        with database.reader() as store:
            rows = query(store, "baseline_run", {"model": model_name, "target": target_json, "ir": ir_sha256}).rows
    except HotdbError:  # no database yet: nothing profiled
        return None
    return rows[0] if rows else None


def tune(database: Database, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
         work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3,
         build_timeout_s: float | None = None, run_timeout_s: float | None = None, share_of: str = "tunable",
         progress=None, notify=None) -> Result:
    """Tune only the tasks covering `coverage` % of the model's latest untuned run for
    `target` with MetaSchedule, re-profile with the database applied, and compare.
    `notify(text)` hears of failed trials as they happen. Raises TuneFailed when no trial
    measured a time (the failed records are stored under the model's tasks first)."""
    from hotdb.capture import tuning
    from hotdb.capture.models import load_model
    from hotdb.capture.profile import capture, parse_target
    from hotdb.ops.capture import capture_items, database_item, model_name_for, profile
    from hotdb.ops.rank import check_coverage, check_share_of

    check_coverage(coverage)
    check_share_of(share_of)
    build_timeout_s = BUILD_TIMEOUT_S if build_timeout_s is None else build_timeout_s
    run_timeout_s = RUN_TIMEOUT_S if run_timeout_s is None else run_timeout_s
    for name, seconds in (("build", build_timeout_s), ("run", run_timeout_s)):
        if not 0 < seconds < float("inf"):
            raise UsageError(f"the {name} time limit must be a positive number of seconds, not {seconds}")
    loaded = load_model(model)
    target_obj = parse_target(target)
    target_json = canonical_target(target_obj)
    model_name, _ = model_name_for(database, loaded, None)
    found = baseline(database, model_name, target_json, loaded.ir_sha256)
    if found is None:
        profile(database, model, target=target, repeat=repeat, progress=progress)
        found = baseline(database, model_name, target_json, loaded.ir_sha256)
    baseline_id, baseline_label = found
    with database.reader() as store:
        selection = [dict(zip(r.columns, row)) for r in [query(store, "export_selection",
                     {"run_id": baseline_id, "coverage_pct": coverage, "basis": share_of})] for row in r.rows]
    tune_plan = plan(selection, trials, per_task_max)
    tune_plan.build_timeout_s, tune_plan.run_timeout_s = build_timeout_s, run_timeout_s
    # a name is data: only its safe characters reach a default folder name
    work = Path(work_dir or "hotdb-tune-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("._"))
    outcome = tuning.tune(loaded, target_obj, tune_plan, work, progress, notify)
    if outcome.valid == 0:
        if outcome.trials:  # what was tried is kept, under the model's own tasks
            database.load(model_name, [database_item(work)])
        raise _failed(outcome, tune_plan)
    apply = tuning.applier(work, target_obj)
    try:
        result = capture(loaded, target_obj, repeat=repeat, progress=progress, apply=apply)
    except HotdbError:
        raise
    except Exception as exc:
        raise CaptureError(f"{model}: re-profiling with the tuned database failed: {type(exc).__name__}: {exc}") from exc
    tags = {"tuned_from": baseline_label, "trials": str(outcome.trials), "valid_trials": str(outcome.valid),
            "coverage_pct": f"{coverage:g}"}
    if not outcome.finished:
        tags["interrupted"] = "true"
    loaded_result = database.load(model_name, capture_items(loaded, result, "tuned", database_folder=work), tags=tags,
                                  target=result.profile.run.target,
                                  run_meta={**result.run_meta, "baseline_run_id": baseline_id})
    with database.reader() as store:
        tuned_id = value(store, "run_by_label", {"label": loaded_result.run_label})
        return query(store, "tune_compare", {"baseline": baseline_id, "tuned": tuned_id, "tuned_kernels": apply.applied},
                     baseline=baseline_label, tuned=loaded_result.run_label, tasks=len(tune_plan.task_names),
                     applied=len([n for n in apply.applied if n in tune_plan.task_names]),
                     trials=outcome.trials, valid_trials=outcome.valid, failures=outcome.failures,
                     work_dir=str(work), finished=outcome.finished)


def _failed(outcome, tune_plan) -> TuneFailed:
    """No trial measured a time: the cause, in MetaSchedule's words, and which limit it was."""
    if not outcome.trials:
        return TuneFailed("the tune ran no trial (interrupted before the first measurement)",
                          trials=0, failures={})
    kinds = sorted(outcome.failures.items(), key=lambda kind: -kind[1])
    cause = "; ".join(f"{n} x {kind}" for kind, n in kinds) or "MetaSchedule gave no reason"
    limit = None
    if kinds and "LocalBuilder: Timeout" in kinds[0][0]:
        limit = "build_timeout_s"
    elif kinds and "LocalRunner: Timeout" in kinds[0][0]:
        limit = "run_timeout_s"
    seconds = {"build_timeout_s": tune_plan.build_timeout_s, "run_timeout_s": tune_plan.run_timeout_s}.get(limit)
    limit_words = f" (the limit was {seconds:g} s)" if seconds else ""
    first = f"\nfirst failure:\n{outcome.first_failure}" if outcome.first_failure and not limit else ""
    return TuneFailed(f"no trial of {outcome.trials} succeeded, so nothing was tuned: {cause}{limit_words}. "
                      f"The failed records are stored under the model's tasks.{first}",
                      trials=outcome.trials, failures=outcome.failures, limit=limit)
