"""Tune only the hotspots: MetaSchedule on the tasks a coverage cut selects.

1. The baseline is the model's latest untuned run for this target (profiled first if
   none): queries/commands/baseline_run.sql.
2. Its coverage cut selects MetaSchedule tasks (queries/commands/export_selection.sql).
3. MetaSchedule tunes those tasks only, weighted by measured share (capture/tuning.py).
4. The database is applied, the model is re-profiled as a new run linked to the run before
   it, and the database is ingested. Steps 2-4 repeat on the new run's times (rounds,
   below) until the budget (trials or wall time) is spent or a round gains too little;
   then the baseline and the last run are compared (tune_compare.sql).

Ctrl-C (or the wall-clock deadline) during tuning keeps the records written so far and
goes on to step 4 once more, then stops: every round's run is stored and linked.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
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


# Rounds. A round tunes the tasks that cover the cut on the *current* times, then applies
# the database and re-profiles: once the hot tasks are tuned, the rest is the hotspot.
# Measured on ResNet-18 here: one MetaSchedule trial takes ~15 s (948 s for 64), one
# re-profile ~10 s (bench/README.md). A round of at least 9 profiles' worth of trials keeps
# re-profiling under 10 % of the wall time; and every task the cut selects gets at least
# two trials a round (MetaSchedule's smallest search step here, trials_per_round).
PROFILE_SHARE = 0.10
FIRST_ROUND_SHARE = 0.25  # of the trial budget: at least four measured course corrections


def round_trials(remaining: int, tasks: int, *, trial_s: float | None, profile_s: float | None, budget: int) -> int:
    """Trials for the next round: the fewest that keep re-profiling under PROFILE_SHARE
    of the round (from the seconds measured so far; a quarter of the budget for the first
    round), at least two for each task the cut selects, at most what the budget has left."""
    if trial_s and profile_s:
        wanted = math.ceil(profile_s * (1 - PROFILE_SHARE) / PROFILE_SHARE / trial_s)
    else:
        wanted = math.ceil(budget * FIRST_ROUND_SHARE)
    return min(remaining, max(2 * tasks, wanted))


@dataclass
class _Round:
    number: int
    run_id: int
    label: str
    tasks: list[str]
    trials: int
    valid: int
    end_to_end_us: float | None
    seconds: float


def tune(database: Database, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
         work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3,
         build_timeout_s: float | None = None, run_timeout_s: float | None = None, share_of: str = "tunable",
         budget_s: float | None = None, min_gain_pct: float | None = None, max_rounds: int | None = None,
         progress=None, notify=None, inform=None) -> Result:
    """Tune the model's hotspots with MetaSchedule in rounds: each round tunes the tasks
    covering `coverage` % of the latest run's times (weighted by measured share), applies
    the database, re-profiles (a new run linked to the one before) and measures. Stops when
    `trials` are spent, `budget_s` seconds have passed (a round is cut at the deadline),
    the last round gained less than `min_gain_pct` % (off by default: a re-profile moves
    1-5 % between runs here, so one noisy round would end a tune), after `max_rounds`, or
    at Ctrl-C; what was tuned is kept and stored. `notify(text)` hears of failed trials, `inform(text)`
    of each round's end. Raises TuneFailed when no trial of the first round measured a time."""
    from hotdb.capture import tuning
    from hotdb.capture.models import load_model
    from hotdb.capture.profile import parse_target
    from hotdb.ops.capture import database_item, model_name_for, profile
    from hotdb.ops.rank import check_coverage, check_share_of

    check_coverage(coverage)
    check_share_of(share_of)
    build_timeout_s = BUILD_TIMEOUT_S if build_timeout_s is None else build_timeout_s
    run_timeout_s = RUN_TIMEOUT_S if run_timeout_s is None else run_timeout_s
    for name, seconds in (("build", build_timeout_s), ("run", run_timeout_s)):
        if not 0 < seconds < float("inf"):
            raise UsageError(f"the {name} time limit must be a positive number of seconds, not {seconds}")
    started = time.monotonic()
    deadline = started + budget_s if budget_s else None
    loaded = load_model(model)
    target_obj = parse_target(target)
    target_json = canonical_target(target_obj)
    model_name, _ = model_name_for(database, loaded, None)
    found = baseline(database, model_name, target_json, loaded.ir_sha256)
    profile_s = None
    if found is None:
        profile_started = time.monotonic()
        profile(database, model, target=target, repeat=repeat, progress=progress)
        profile_s = time.monotonic() - profile_started
        found = baseline(database, model_name, target_json, loaded.ir_sha256)
    baseline_id, baseline_label = found
    # a name is data: only its safe characters reach a default folder name
    work = Path(work_dir or "hotdb-tune-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("._"))
    rounds: list[_Round] = []
    current_id, current_label = baseline_id, baseline_label
    remaining, trial_s, failures, stopped, apply = trials, None, {}, None, None
    try:
        while stopped is None:
            with database.reader() as store:
                selection = [dict(zip(r.columns, row)) for r in [query(store, "export_selection",
                             {"run_id": current_id, "coverage_pct": coverage, "basis": share_of})] for row in r.rows]
            chosen = [r for r in selection if r["tuner"] == "meta_schedule" and r["task_name"] and r["chosen"]]
            size = round_trials(remaining, len(chosen), trial_s=trial_s, profile_s=profile_s, budget=trials)
            if deadline is not None and trial_s:
                # MetaSchedule stores a task's results only when it comes back to the task or
                # ends: a round cut at the deadline loses what it had not stored, so a round is
                # sized to end before it (the interrupt stays as the safety net)
                fits = int((deadline - time.monotonic() - (profile_s or 0)) / trial_s)
                size = min(size, max(2 * len(chosen), fits))
            if rounds and size < len(chosen):  # what is left cannot give every hot task a trial
                stopped = "trials spent"
                break
            tune_plan = plan(selection, size, per_task_max)
            tune_plan.build_timeout_s, tune_plan.run_timeout_s = build_timeout_s, run_timeout_s
            if deadline is not None:
                tune_plan.batch_max = 4
            round_started = time.monotonic()
            outcome = tuning.tune(loaded, target_obj, tune_plan, work, progress, notify, deadline=deadline)
            remaining -= outcome.trials
            for kind, n in outcome.failures.items():
                failures[kind] = failures.get(kind, 0) + n
            if outcome.valid == 0 and not rounds:
                raise _failed(outcome, tune_plan)
            tuning_s = time.monotonic() - round_started
            trial_s = tuning_s / outcome.trials if outcome.trials else trial_s
            profile_started = time.monotonic()
            apply = tuning.applier(work, target_obj)
            tags = {"tuned_from": current_label, "round": str(len(rounds) + 1), "tasks": ",".join(tune_plan.task_names),
                    "trials": str(outcome.trials), "valid_trials": str(outcome.valid), "coverage_pct": f"{coverage:g}"}
            if not outcome.finished:
                tags["interrupted"] = "deadline" if outcome.deadline_reached else "true"
            run_id, label, e2e = _reprofile(database, model, loaded, target_obj, model_name, apply, repeat, progress,
                                            tags, current_id)
            profile_s = time.monotonic() - profile_started
            rounds.append(_Round(len(rounds) + 1, run_id, label, tune_plan.task_names, outcome.trials, outcome.valid,
                                 e2e, time.monotonic() - round_started))
            if inform:
                inform(f"round {len(rounds)}: {len(tune_plan.task_names)} tasks, {outcome.valid} of {outcome.trials} "
                       f"trials measured, end to end {e2e / 1000:,.2f} ms (run {label})" if e2e else f"round {len(rounds)} done")
            before = rounds[-2].end_to_end_us if len(rounds) > 1 else _end_to_end(database, baseline_id)
            stopped = _stop(outcome, remaining, deadline, rounds, before, e2e, min_gain_pct, max_rounds, trial_s,
                            profile_s, len(chosen))
            current_id, current_label = run_id, label
    finally:
        # the database once, as it stands after the last round (or the failed first one):
        # every record stored once, under the model's own tasks
        if (work / "database_tuning_record.json").exists():
            database.load(model_name, [database_item(work)])
    with database.reader() as store:
        return query(store, "tune_compare", {"baseline": baseline_id, "tuned": current_id, "tuned_kernels": apply.applied},
                     baseline=baseline_label, tuned=current_label, tasks=len(set().union(*(r.tasks for r in rounds))),
                     applied=len({n for r in rounds for n in r.tasks} & set(apply.applied)),
                     trials=sum(r.trials for r in rounds), valid_trials=sum(r.valid for r in rounds),
                     failures=failures, work_dir=str(work), finished=stopped not in ("interrupted",),
                     stopped=stopped, seconds=time.monotonic() - started,
                     rounds=[{"round": r.number, "run": r.label, "tasks": r.tasks, "trials": r.trials,
                              "valid_trials": r.valid, "end_to_end_us": r.end_to_end_us, "seconds": round(r.seconds, 1)}
                             for r in rounds])


def _stop(outcome, remaining: int, deadline: float | None, rounds: list, before: float | None, after: float | None,
          min_gain_pct: float, max_rounds: int | None, trial_s: float | None, profile_s: float | None,
          tasks: int) -> str | None:
    """Why the rounds end after this one, or None to go on."""
    if not outcome.finished:
        return "deadline" if outcome.deadline_reached else "interrupted"
    if remaining < 2:
        return "trials spent"
    if max_rounds is not None and len(rounds) >= max_rounds:
        return "rounds done"
    if deadline is not None and time.monotonic() + 2 * tasks * (trial_s or 0) + (profile_s or 0) > deadline:
        return "deadline"  # not even the smallest round fits: stop within one round of it
    if min_gain_pct is not None and before and after and 100.0 * (before - after) / before < min_gain_pct:
        return f"last round gained under {min_gain_pct:g} %"
    return None


def _end_to_end(database: Database, run_id: int) -> float | None:
    with database.reader() as store:
        return value(store, "run_end_to_end", {"run_id": run_id})


def _reprofile(database, model, loaded, target_obj, model_name, apply, repeat, progress, tags, previous_id):
    """Re-profile with the database applied, stored as a run linked to `previous_id`:
    (run_id, label, end-to-end median in us)."""
    from hotdb.capture.profile import capture
    from hotdb.ops.capture import capture_items

    try:
        result = capture(loaded, target_obj, repeat=repeat, progress=progress, apply=apply)
    except HotdbError:
        raise
    except Exception as exc:
        raise CaptureError(f"{model}: re-profiling with the tuned database failed: {type(exc).__name__}: {exc}") from exc
    loaded_result = database.load(model_name, capture_items(loaded, result, "tuned"), tags=tags,
                                  target=result.profile.run.target,
                                  run_meta={**result.run_meta, "baseline_run_id": previous_id})
    with database.reader() as store:
        run_id = value(store, "run_by_label", {"label": loaded_result.run_label})
        return run_id, loaded_result.run_label, value(store, "run_end_to_end", {"run_id": run_id})


def _failed(outcome, tune_plan) -> TuneFailed:
    """No trial measured a time: the cause, in MetaSchedule's words, and which limit it was."""
    if not outcome.trials:
        if outcome.deadline_reached:
            return TuneFailed("the budget ran out before the first batch of trials was measured, so nothing was "
                              "tuned; give --budget more time (MetaSchedule stores a batch only once it is measured)",
                              trials=0, failures={})
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
