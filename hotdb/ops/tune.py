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

import json
from pathlib import Path

from hotdb.errors import CaptureError, HotdbError, UsageError
from hotdb.result import Result
from hotdb.store.database import Database, query, value


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


def baseline(database: Database, model_name: str, target_json: str | None) -> tuple[int, str] | None:
    """(run_id, label) of the run a tune starts from, or None when the model has none."""
    try:
        with database.reader() as store:
            rows = query(store, "baseline_run", {"model": model_name, "target": target_json}).rows
    except HotdbError:  # no database yet: nothing profiled
        return None
    return rows[0] if rows else None


def tune(database: Database, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
         work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3, progress=None) -> Result:
    """Tune only the tasks covering `coverage` % of the model's latest untuned run for
    `target` with MetaSchedule, re-profile with the database applied, and compare."""
    from hotdb.capture import tuning
    from hotdb.capture.models import load_model
    from hotdb.capture.profile import capture, parse_target
    from hotdb.ops.capture import capture_items, profile
    from hotdb.ops.rank import check_coverage

    check_coverage(coverage)
    loaded = load_model(model)
    target_obj = parse_target(target)
    target_json = json.dumps(dict(target_obj.export()), sort_keys=True, default=str)
    found = baseline(database, loaded.name, target_json)
    if found is None:
        profile(database, model, target=target, repeat=repeat, progress=progress)
        found = baseline(database, loaded.name, target_json)
    baseline_id, baseline_label = found
    with database.reader() as store:
        selection = [dict(zip(r.columns, row)) for r in [query(store, "export_selection",
                     {"run_id": baseline_id, "coverage_pct": coverage})] for row in r.rows]
    tune_plan = plan(selection, trials, per_task_max)
    work = Path(work_dir or f"hotdb-tune-{loaded.name}")
    finished = tuning.tune(loaded, target_obj, tune_plan, work, progress)
    try:
        result = capture(loaded, target_obj, repeat=repeat, progress=progress, apply=tuning.applier(work, target_obj))
    except HotdbError:
        raise
    except Exception as exc:
        raise CaptureError(f"{model}: re-profiling with the tuned database failed: {type(exc).__name__}: {exc}") from exc
    tags = {"tuned_from": baseline_label, "trials": str(tune_plan.trials), "coverage_pct": f"{coverage:g}"}
    if not finished:
        tags["interrupted"] = "true"
    loaded_result = database.load(loaded.name, capture_items(loaded, result, "tuned", database_folder=work), tags=tags,
                                  target=result.profile.run.target,
                                  run_meta={**result.run_meta, "baseline_run_id": baseline_id})
    with database.reader() as store:
        tuned_id = value(store, "run_by_label", {"label": loaded_result.run_label})
        return query(store, "tune_compare", {"baseline": baseline_id, "tuned": tuned_id, "tasks": tune_plan.task_names},
                     baseline=baseline_label, tuned=loaded_result.run_label, tasks=len(tune_plan.task_names),
                     trials=tune_plan.trials, work_dir=str(work), finished=finished)
