"""Tune only the hotspots: MetaSchedule on the tasks a coverage cut selects.

1. The baseline is the model's latest untuned run for this target (profiled first if
   none): queries/commands/baseline_run.sql.
2. Its coverage cut selects MetaSchedule tasks (queries/commands/export_selection.sql);
   the tasks no round has tried follow them, for the scheduler to reach by expected gain.
3. MetaSchedule tunes those tasks only, in a process of its own, under hotdb's task
   scheduler: the hottest first, each batch joined (its records stored) as soon as it is
   measured (capture/tune/driver.py, capture/tune/scheduler.py). It starts warm: from the best
   records hotdb holds for the same workloads and target, from any model or run
   (queries/commands/warm_records.sql), and from the cost model the last tune for the
   target left.
4. The database is applied, the model is re-profiled as a new run linked to the run before
   it, and the database is ingested. Steps 2-4 repeat on the new run's times (rounds,
   below) until the budget (trials or wall time) is spent or a round gains too little;
   then the baseline and the last run are compared (tune_compare.sql).

Ctrl-C (or the wall-clock deadline) during tuning stops the tuner process at once, keeps
every batch measured so far, and goes on to step 4 once more, then stops: every round's
run is stored and linked.

On the devices of an RPC tracker (`rpc`, `key`), builds stay here and every measurement
goes there: candidates through MetaSchedule's RPCRunner on every device of the key at
once (capture/tune/runner.py), the baseline and each round's re-profile on a device the
tracker lends (capture/remote.py). A device that leaves mid-tune is named once; its
trial in flight fails and the others measure the rest.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from hotdb.errors import BadArgument, DeviceError, HotdbError, TuneFailed, UsageError
from hotdb.ops.common import (
    SAMPLES_FLOOR_PCT,
    capture_run,
    check_coverage,
    check_share_of,
    database_item,
    model_name_for,
    remote,
    store_capture,
    target_of,
)
from hotdb.result import Result
from hotdb.store.database import Database, query, value
from hotdb.wording import counted

# Per-trial limits. On this project's 2-core machine, building a batch of two MLP trials
# took 10-15 s idle and 37-39 s beside two busy processes, where MetaSchedule's default of
# 30 s failed every trial (bench/README.md, "Tuning on a busy machine"), most of it each
# fresh worker's import of TVM's intrinsics, which hotdb's kept workers make once, outside
# the limit (capture/tune/builder.py); one ResNet-18 candidate alone still took ~50 s to build
# (bench/tune_builder.py). Running one took about 1 s.
BUILD_TIMEOUT_S = 120.0
RUN_TIMEOUT_S = 60.0
# What follows the last batch of a tune, kept before a --budget's deadline with the
# round's re-profile: the tuner's end (its cost model saved), the work database stored,
# the comparison. 1.2-1.3 s for the MLP and for ResNet-18 here, idle; a batch of two
# trials now takes about as long, so "within one batch of the budget" needs it counted.
FINISH_S = 2.0


def tune(database: Database, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
         work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3,
         build_timeout_s: float | None = None, run_timeout_s: float | None = None, share_of: str = "tunable",
         budget_s: float | None = None, min_gain_pct: float | None = None, max_rounds: int | None = None,
         progress=None, notify=None, inform=None, rpc: str | None = None, key: str | None = None,
         rpc_timeout_s: float | None = None, cc: str | None = None) -> Result:
    """Tune the model's hotspots with MetaSchedule in rounds: each round tunes the tasks
    covering `coverage` % of the latest run's times (weighted by measured share), applies
    the database, re-profiles (a new run linked to the one before) and measures. Stops when
    `trials` are spent, `budget_s` seconds have passed (a round is cut at the deadline),
    the last round gained less than `min_gain_pct` % (off by default: a re-profile moves
    1-5 % between runs here, so one noisy round would end a tune), after `max_rounds`, or
    at Ctrl-C; what was tuned is kept and stored. `notify(text)` hears of failed trials, `inform(text)`
    of each round's end. With `rpc` (a tracker's HOST:PORT) and `key`, every measurement is
    made on the devices of the key, candidates on all of them at once; `cc` cross-compiles
    for a target that is not this machine's. Raises TuneFailed when no trial of the first
    round measured a time."""
    check_coverage(coverage)
    check_share_of(share_of)
    if repeat < 1:
        raise BadArgument("a capture needs at least one timed repeat")
    limits = _limits(build_timeout_s, run_timeout_s)
    where = remote(rpc, key, rpc_timeout_s)
    started = time.monotonic()
    job = _start(database, model, target=target, repeat=repeat, work_dir=work_dir, progress=progress, rpc=where, cc=cc,
                 settings=dict(coverage=coverage, share_of=share_of, per_task_max=per_task_max, limits=limits,
                               trials=trials, remaining=trials, deadline=started + budget_s if budget_s else None,
                               budget_s=budget_s,
                               min_gain_pct=min_gain_pct, max_rounds=max_rounds, notify=notify, inform=inform))
    try:
        stopped = None
        while stopped is None:
            stopped = _next_round(job)
    finally:
        if job.tuner is not None:
            job.tuner.close()
        # the database once, as it stands after the last round (or the failed first one):
        # every record stored once, under the model's own tasks
        from hotdb.capture.tune.driver import RECORDS, WORKLOADS

        if all((job.work / name).is_file() and (job.work / name).stat().st_size for name in (RECORDS, WORKLOADS)):
            database.load(job.model_name, [database_item(job.work)])
    if stopped == "failed":  # what it measured is stored and applied; the tune is still a failure
        last = job.rounds[-1]
        raise TuneFailed(f"{job.failed_cause}. The {last.valid} trials measured before it are kept, applied and "
                         f"profiled as run {last.label}", trials=sum(r.trials for r in job.rounds),
                         failures=job.failures)
    return _summary(job, stopped, time.monotonic() - started)


def _limits(build_timeout_s: float | None, run_timeout_s: float | None) -> tuple[float, float]:
    """The per-trial (build, run) limits in seconds, the defaults where none is given."""
    limits = (BUILD_TIMEOUT_S if build_timeout_s is None else build_timeout_s,
              RUN_TIMEOUT_S if run_timeout_s is None else run_timeout_s)
    for name, seconds in zip(("build", "run"), limits):
        if not 0 < seconds < float("inf"):
            raise BadArgument(f"the {name} time limit must be a positive number of seconds, not {seconds}")
    return limits


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
    warm_records: int = 0
    longest_batch_s: float | None = None
    devices: dict | None = None  # over RPC: what each device measured (capture/tune/runner.py: DeviceWatch)
    batches_s: float = 0.0  # the batches' seconds, dispatch to join (the round less the tuner's start, the re-profile)
    parts_s: dict = field(default_factory=dict)  # MetaSchedule's profile of the round: part -> seconds


@dataclass
class _Job:
    """One tune: what every round needs (the settings of `tune`), and what the rounds did."""

    database: Database
    model: str  # as given: a zoo name, a file
    loaded: object
    target: object
    target_text: str | None  # as the user gave it: the tuner process parses it again
    target_json: str | None  # its normal form, as records store it
    model_name: str  # as stored
    work: Path
    repeat: int
    progress: object
    baseline: tuple[int, str]  # (run_id, label)
    profile_s: float | None  # the last profile's seconds (None until one is timed)
    coverage: float
    share_of: str
    per_task_max: int | None
    limits: tuple[float, float]
    trials: int
    remaining: int
    deadline: float | None
    min_gain_pct: float | None
    max_rounds: int | None
    notify: object
    inform: object
    trial_s: float | None = None
    budget_s: float | None = None
    budget_left_s: float | None = None  # the budget's seconds left when the rounds stopped for it
    failures: dict = field(default_factory=dict)
    rounds: list[_Round] = field(default_factory=list)
    apply: object = None
    failed_cause: str | None = None  # why the tuner stopped early, when it failed
    tuner: object = None  # the tuner process, kept for the rounds (capture/tune/driver.py: Tuner)
    untuned: dict = field(default_factory=dict)  # task -> (structural hash, us a call in the baseline)
    batches: dict = field(default_factory=dict)  # task -> batches joined over the rounds (the scheduler's history)
    stale: dict = field(default_factory=dict)  # task -> its last batches in a row that found nothing (the same)
    rpc: object = None  # the tracker's devices every measurement is made on (capture/remote.py: Rpc)
    cc: str | None = None  # the cross compiler, as given (--cc)
    cc_path: str | None = None  # the one found, for the tuner's builder (None: this machine's own)

    @property
    def reserve_s(self) -> float:
        """The seconds a round keeps before the deadline: its re-profile, then the end."""
        return (self.profile_s or 0) + FINISH_S

    @property
    def current(self) -> tuple[int, str]:
        """The run the next round starts from: the last round's, else the baseline."""
        return (self.rounds[-1].run_id, self.rounds[-1].label) if self.rounds else self.baseline


def _start(database: Database, model: str, *, target: str | None, repeat: int, work_dir, progress, rpc, cc,
           settings) -> _Job:
    """The job: the model loaded, its name as stored, and its baseline run (profiled first
    when the model has none for this target, IR and device)."""
    from hotdb.capture.models import load_model
    from hotdb.capture.targets import cross_compiler
    from hotdb.workload.targets import canonical as canonical_target

    loaded = load_model(model)
    target_obj, note = target_of(target)
    if note and settings["inform"]:
        settings["inform"](note)
    cc_path = cross_compiler(target_obj, cc)[1] if rpc is not None else None
    target_json = canonical_target(target_obj)
    model_name, _ = model_name_for(database, loaded, None)
    device = rpc.key if rpc is not None else "local"
    # a baseline profiled before the tune: its capture's seconds are the estimate a round
    # keeps for its re-profile before the deadline, until one has been timed
    found = baseline(database, model_name, target_json, loaded.ir_sha256, device)
    profile_s = found[2] if found else None
    inform = settings.get("inform") or (lambda text: None)
    if found is not None and not found[3]:
        # a busy capture measures the machine: a speed-up against it is the load's
        inform(f"the stored baseline {found[1]} was captured while other processes used {found[4]:.0f} % of the "
               "CPUs: profiling a fresh one")
        found = None
    if found is None:
        profile_started = time.monotonic()
        result = capture_run(loaded, target_obj, model=model, repeat=repeat, progress=progress, rpc=rpc, cc=cc)
        store_capture(database, model_name, loaded, result, stamp=str(target_obj))
        profile_s = time.monotonic() - profile_started
        found = baseline(database, model_name, target_json, loaded.ir_sha256, device)
        if not found[3]:
            inform(f"the baseline {found[1]} was captured while other processes used {found[4]:.0f} % of the CPUs: "
                   "the comparison allows for the slowdown that can cause, and tells only changes beyond it")
    # a name is data: only its safe characters reach a default folder name
    work = Path(work_dir or "hotdb-tune-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("._"))
    job = _Job(database, model, loaded, target_obj, target, target_json, model_name, work, repeat, progress,
               tuple(found[:2]), profile_s, **settings, rpc=rpc, cc=cc, cc_path=cc_path)
    # a record slower than the untuned kernel is not applied: the baseline's time a call
    job.untuned = {r["task_name"]: (r["structural_hash"], r["time_us"] / r["calls"])
                   for r in select(database, job.baseline[0], None, "tunable") if r["calls"] and r["time_us"]}
    return job


def baseline(database: Database, model_name: str, target_json: str | None, ir_sha256: str | None,
             device: str | None = None) -> tuple[int, str, float | None, bool, float | None] | None:
    """(run_id, label, its capture's seconds, whether the machine was quiet, other
    processes' share of the CPUs) of the run a tune starts from (measured on `device`, as
    queries/run_device.sql names it), or None when the model has none."""
    try:
        with database.reader() as store:
            rows = query(store, "baseline_run", {"model": model_name, "target": target_json, "ir": ir_sha256,
                                                 "device": device}).rows
    except HotdbError:  # no database yet: nothing profiled
        return None
    return rows[0] if rows else None


# -- selection: which tasks a round tunes -----------------------------------------------------


def select(database: Database, run_id: int, coverage: float, share_of: str) -> list[dict]:
    """The tasks a round tunes: the MetaSchedule tasks that the run's kernels act through
    (one per fused function: a workload fused with two epilogues is two tasks) among the
    rows of the run's coverage cut (queries/commands/export_selection.sql)."""
    with database.reader() as store:
        result = query(store, "export_selection", {"run_id": run_id, "coverage_pct": coverage, "basis": share_of})
    rows = [dict(zip(result.columns, row)) for row in result.rows]
    return [r for r in rows if r["tuner"] == "meta_schedule" and r["task_name"] and r["chosen"]]


def untried(database: Database, run_id: int, share_of: str, cut: list[dict], tried) -> list[dict]:
    """The run's MetaSchedule tasks outside the cut that no round has tried, hottest first.
    A round takes them after its cut, for the scheduler to reach by expected gain: an
    untuned kernel runs ~10x its tuned time, so the untuned profile's last 10 % outlast the
    cut (ResNet-18 here: three 1x1 convolutions, 11.6 ms of a 142 ms tuned run, 8 %, were
    never tuned at a 90 % cut, where MetaSchedule, tuning every task, ended at 128 ms)."""
    taken = {r["task_name"] for r in cut} | set(tried)
    return [r for r in select(database, run_id, None, share_of) if r["task_name"] not in taken]


def plan(chosen: list[dict], trials: int, per_task_max: int | None):
    """The tasks a round tunes (`select`'s) and their weights: each task weighted by its own
    kernels' share of runtime, `trials` among them."""
    from hotdb.capture.tune.driver import TunePlan

    if not chosen:
        raise UsageError("the coverage cut selects no MetaSchedule task of this run; profile the model "
                         "(a live profile extracts MetaSchedule tasks) and try again")
    if trials < len(chosen):
        raise UsageError(f"a budget of {trials} trials is fewer than the {len(chosen)} selected tasks; "
                         "give each at least one")
    return TunePlan([r["task_name"] for r in chosen], [float(r["task_share_pct"]) for r in chosen], trials,
                    per_task_max or trials, untuned_us=[float(r["time_us"] or 0.0) for r in chosen])


# records per workload a tune starts from: MetaSchedule's evolutionary search seeds its
# first population with up to a fifth of 512 measured records (init_measured_ratio), but a
# workload's best few carry the search; more only cost the tuner time to replay
WARM_PER_WORKLOAD = 32


def warm_records(database: Database, chosen: list[dict], target_json: str | None) -> dict[str, list[str]]:
    """The best records hotdb holds for the chosen tasks' workloads on this target, from
    any model or run: task name -> tuning-record lines, best first
    (queries/commands/warm_records.sql)."""
    names: dict[str, list[str]] = {}
    for row in chosen:
        if row.get("structural_hash"):
            names.setdefault(row["structural_hash"], []).append(row["task_name"])
    if not names or target_json is None:
        return {}
    with database.reader() as store:
        result = query(store, "warm_records", {"hashes": sorted(names), "target": target_json,
                                               "per_workload": WARM_PER_WORKLOAD})
    warm: dict[str, list[str]] = {}
    for shash, line, _ in result.rows:
        for name in names[shash]:
            warm.setdefault(name, []).append(line)
    return warm


# -- a round: tune the selection, apply, re-profile -------------------------------------------


def _next_round(job: _Job) -> str | None:
    """Select, size and run one round; why the rounds end after it, or None to go on."""
    from hotdb.capture.tune.driver import cost_model_path

    chosen = select(job.database, job.current[0], job.coverage, job.share_of)
    size = _round_size(job, len(chosen))
    if job.rounds and job.remaining < len(chosen):  # what is left cannot give every hot task a trial
        return "trials spent"
    if job.rounds and size < len(chosen):  # the deadline's: the hottest tasks the time left can tune
        chosen = chosen[:size]
    # the untried tasks, while the round's trials give each a first batch beside the cut's
    chosen += untried(job.database, job.current[0], job.share_of, chosen, job.batches)[:max(0, size // TASK_TRIALS_MIN - len(chosen))]
    tune_plan = plan(chosen, size, job.per_task_max)
    tune_plan.batches_before = [job.batches.get(name, 0) for name in tune_plan.task_names]
    tune_plan.stale_before = [job.stale.get(name, 0) for name in tune_plan.task_names]
    tune_plan.build_timeout_s, tune_plan.run_timeout_s = job.limits
    tune_plan.model, tune_plan.target = job.model, job.target_text
    tune_plan.warm = warm_records(job.database, chosen, job.target_json)
    tune_plan.cost_model = cost_model_path(job.target_json)
    if job.deadline is not None:  # a stop loses the batch in flight: a pair, one trial a build worker
        tune_plan.batch_max = BATCH_UNDER_DEADLINE
    if job.rpc is not None:
        tune_plan.rpc, tune_plan.devices, tune_plan.cc = job.rpc.as_job(), _devices(job.rpc), job.cc_path
    before = job.rounds[-1].end_to_end_us if job.rounds else _end_to_end(job.database, job.baseline[0])
    outcome = _run_round(job, tune_plan)
    return _stop(job, outcome, before, len(chosen))


def _devices(rpc) -> list[str]:
    """The servers of the key, as a round starts: its runner gets a worker for each."""
    from hotdb.capture.tracker import Tracker

    with Tracker(rpc.tracker) as tracker:
        servers = tracker.servers(rpc.key)
    if not servers:
        raise DeviceError(f"the RPC tracker at {rpc.tracker} holds no device under key {rpc.key!r} "
                          f"(hotdb devices --rpc {rpc.tracker})")
    return servers


def _run_round(job: _Job, tune_plan):
    """Tune `tune_plan`, apply the database and re-profile as the round's run; the outcome.
    TuneFailed when no trial of the first round measured a time."""
    from hotdb.capture.tune import driver

    round_started = time.monotonic()
    # the tuner stops in time for the round's re-profile to end by the deadline
    deadline = job.deadline - job.reserve_s if job.deadline is not None else None
    job.tuner = job.tuner or driver.Tuner()
    outcome = driver.tune(tune_plan, job.work, tuner=job.tuner, progress=job.progress, notify=job.notify,
                          inform=job.inform, deadline=deadline)
    job.remaining -= outcome.trials
    job.batches.update(outcome.batches)
    job.stale.update(outcome.stale)
    for kind, n in outcome.failures.items():
        job.failures[kind] = job.failures.get(kind, 0) + n
    if outcome.valid == 0 and (not job.rounds or outcome.cause):
        raise _failed(outcome, tune_plan, job.work)
    # a trial's seconds, from the batches alone: a round's wall time holds the tuner's start
    # (~9-20 s, once a tune), which no next batch pays again
    if outcome.trials:
        job.trial_s = (outcome.batches_s or time.monotonic() - round_started) / outcome.trials
    profile_started = time.monotonic()
    job.apply = driver.applier(job.work, job.target, job.untuned)
    # the tasks it tried: the scheduler may leave the untried ones after the cut (`untried`) for a later round
    tried = [name for name in tune_plan.task_names if outcome.batches.get(name)]
    tags = {"tuned_from": job.current[1], "round": str(len(job.rounds) + 1), "tasks": ",".join(tried),
            "trials": str(outcome.trials), "valid_trials": str(outcome.valid), "coverage_pct": f"{job.coverage:g}"}
    if not outcome.finished or outcome.deadline_reached:
        tags["interrupted"] = "deadline" if outcome.deadline_reached else "true"
    try:
        run_id, label, e2e = _reprofile(job, tags)
    except DeviceError as exc:
        if not outcome.cause:
            raise
        why = "" if str(exc) in outcome.cause else f" ({exc})"
        raise TuneFailed(f"{outcome.cause}; the round could not be re-profiled{why}. The {outcome.valid} trials "
                         "measured are stored", trials=outcome.trials, failures=job.failures) from None
    job.profile_s = time.monotonic() - profile_started
    job.rounds.append(_Round(len(job.rounds) + 1, run_id, label, tried, outcome.trials, outcome.valid,
                             e2e, time.monotonic() - round_started, outcome.warm_records, outcome.longest_batch_s,
                             outcome.devices, outcome.batches_s, outcome.seconds))
    if job.inform:
        job.inform(f"round {len(job.rounds)}: {counted(len(tried), 'task')} tried, {outcome.valid} of {outcome.trials} "
                   f"trials measured, end to end {e2e / 1000:,.2f} ms (run {label})" if e2e
                   else f"round {len(job.rounds)} done")
    return outcome


def _reprofile(job: _Job, tags: dict) -> tuple[int, str, float | None]:
    """Re-profile with the database applied, stored as a run linked to the current one:
    (run_id, label, end-to-end median in us)."""
    result = capture_run(job.loaded, job.target, model=job.model, failed="re-profiling with the tuned database failed",
                         repeat=job.repeat, progress=job.progress, apply=job.apply, rpc=job.rpc, cc=job.cc)
    loaded_result = store_capture(job.database, job.model_name, job.loaded, result, stamp="tuned", tags=tags,
                                  run_meta={"baseline_run_id": job.current[0]})
    with job.database.reader() as store:
        run_id = value(store, "run_by_label", {"label": loaded_result.run_label})
        return run_id, loaded_result.run_label, value(store, "run_end_to_end", {"run_id": run_id})


def _end_to_end(database: Database, run_id: int) -> float | None:
    with database.reader() as store:
        return value(store, "run_end_to_end", {"run_id": run_id})


# -- budget: how large a round is, and when the rounds stop -----------------------------------

# Rounds. A round tunes the tasks that cover the cut on the *current* times, then applies
# the database and re-profiles: once the hot tasks are tuned, the rest is the hotspot.
# Measured on ResNet-18 here: one MetaSchedule trial takes ~15 s (948 s for 64), one
# re-profile ~10 s (bench/README.md). A round of at least 9 profiles' worth of trials keeps
# re-profiling under 10 % of the wall time; and every task the cut selects gets at least
# two trials a round (MetaSchedule's smallest search step here, trials_per_round).
PROFILE_SHARE = 0.10
FIRST_ROUND_SHARE = 0.25  # of the trial budget: at least four measured course corrections
TASK_TRIALS_MIN = 2  # trials a round gives each of its tasks at least (a batch)
# A first round without a saved cost model ends once a new one ranks: XGBModel scores at
# random for its first 100 trials (num_warmup_samples), and a round keeps the small search
# it started with (capture/tune/process.py: _search). At 64 trials a task on ResNet-18 a
# cold first round of a quarter of the budget (304 trials, 172-313 s) decided the curve
# up to a fifth of MetaSchedule's wall time (bench/README.md, "At the budget people use");
# 128 leaves the round's last batch room to fall short of its trials.
COLD_FIRST_ROUND = 128


def round_trials(remaining: int, tasks: int, *, trial_s: float | None, profile_s: float | None, budget: int,
                 cold: bool = False) -> int:
    """Trials for the next round: the fewest that keep re-profiling under PROFILE_SHARE
    of the round (from the seconds measured so far; for the first round a quarter of the
    budget, COLD_FIRST_ROUND at most when it starts a new cost model), at least two for
    each task the cut selects, at most what the budget has left."""
    if trial_s and profile_s:
        wanted = math.ceil(profile_s * (1 - PROFILE_SHARE) / PROFILE_SHARE / trial_s)
    else:
        wanted = min(math.ceil(budget * FIRST_ROUND_SHARE), COLD_FIRST_ROUND if cold else budget)
    return min(remaining, max(TASK_TRIALS_MIN * tasks, wanted))


def _round_size(job: _Job, tasks: int) -> int:
    """round_trials, at least a fair part of what is left for the rounds left (all of it
    for the last), and with a deadline no more than fit before it."""
    from hotdb.capture.tune.driver import cost_model_path

    size = round_trials(job.remaining, tasks, trial_s=job.trial_s, profile_s=job.profile_s, budget=job.trials,
                        cold=not job.rounds and not Path(cost_model_path(job.target_json)).is_file())
    if job.max_rounds is not None:
        size = max(size, math.ceil(job.remaining / max(1, job.max_rounds - len(job.rounds))))
    if job.deadline is not None and job.trial_s:
        # the tuner stops at the deadline by itself, losing nothing it measured; a round
        # sized to end before it spends the trials it does not reach on the next round
        fits = int((job.deadline - time.monotonic() - job.reserve_s) / job.trial_s)
        size = min(size, max(BATCH_UNDER_DEADLINE, fits))
    return size


# trials a batch with a deadline: a stop loses the batch in flight (driver.TunePlan.batch_max)
BATCH_UNDER_DEADLINE = 2


def next_round_s(job: _Job) -> float:
    """The least a next round takes: one batch and the re-profile, and the tune's end."""
    return BATCH_UNDER_DEADLINE * (job.trial_s or 0) + job.reserve_s


def _stop(job: _Job, outcome, before: float | None, tasks: int) -> str | None:
    """Why the rounds end after this one, or None to go on."""
    after = job.rounds[-1].end_to_end_us
    if outcome.cause:
        job.failed_cause = outcome.cause
        return "failed"
    if outcome.deadline_reached:
        return "deadline"
    if not outcome.finished:
        return "interrupted"
    if job.remaining < max(TASK_TRIALS_MIN, outcome.batch):  # a round of what a batch left: a re-profile for a few trials
        return "trials spent"
    if job.max_rounds is not None and len(job.rounds) >= job.max_rounds:
        return "rounds done"
    if job.deadline is not None and time.monotonic() + next_round_s(job) > job.deadline:
        # not even one batch and its re-profile fit: the budget's time left is said
        job.budget_left_s = max(0.0, job.deadline - time.monotonic())
        return "deadline"
    if job.min_gain_pct is not None and before and after and 100.0 * (before - after) / before < job.min_gain_pct:
        return f"last round gained under {job.min_gain_pct:g} %"
    return None


def _summary(job: _Job, stopped: str | None, seconds: float) -> Result:
    """The baseline against the last round's run (queries/commands/tune_compare.sql), with
    what the rounds did as facts."""
    rounds, tuned = job.rounds, {n for r in job.rounds for n in r.tasks}
    from hotdb.ops.stats import register

    with job.database.reader() as store:
        register(store.con)
        return query(store, "tune_compare", {"baseline": job.baseline[0], "tuned": job.current[0],
                                             "tuned_kernels": job.apply.applied, "floor_pct": SAMPLES_FLOOR_PCT},
                     baseline=job.baseline[1], tuned=job.current[1], tasks=len(tuned),
                     applied=len(tuned & set(job.apply.applied)), slower=sorted(tuned & set(job.apply.slower)),
                     trials=sum(r.trials for r in rounds), valid_trials=sum(r.valid for r in rounds),
                     failures=job.failures, work_dir=str(job.work), finished=stopped not in ("interrupted",),
                     stopped=stopped, seconds=seconds, devices=_devices_done(job), budget_s=job.budget_s,
                     budget_left_s=job.budget_left_s if stopped == "deadline" else None,
                     next_round_s=next_round_s(job) if stopped == "deadline" else None,
                     rounds=[{"round": r.number, "run": r.label, "tasks": r.tasks, "trials": r.trials,
                              "valid_trials": r.valid, "end_to_end_us": r.end_to_end_us, "seconds": round(r.seconds, 1),
                              "warm_records": r.warm_records, "longest_batch_s": r.longest_batch_s,
                              "devices": r.devices, "batches_s": round(r.batches_s, 2),
                              "parts_s": {k: round(v, 3) for k, v in r.parts_s.items()}}
                             for r in rounds])


def _devices_done(job: _Job) -> dict | None:
    """Over RPC: what each device measured over the rounds, and the devices lost."""
    if job.rpc is None:
        return None
    done: dict = {"key": job.rpc.key, "tracker": job.rpc.tracker, "measured": {}, "failed": {}, "lost": []}
    for r in job.rounds:
        for part in ("measured", "failed"):
            for server, n in (r.devices or {}).get(part, {}).items():
                done[part][server] = done[part].get(server, 0) + n
        done["lost"] += [s for s in (r.devices or {}).get("lost", []) if s not in done["lost"]]
    return done


def _failed(outcome, tune_plan, work: Path) -> TuneFailed:
    """No trial measured a time: the cause, in MetaSchedule's words, and which limit it was."""
    if outcome.cause and not outcome.failures:
        return TuneFailed(f"the tune failed: {outcome.cause} ({outcome.trials} trials were measured; "
                          f"the tuner's log is {work / 'tune.log'})", trials=outcome.trials, failures={})
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
    first = (f" First failure: {outcome.first_failure} (with its schedule in {work / 'logs'})"
             if outcome.first_failure and not limit else "")
    return TuneFailed(f"no trial of {outcome.trials} succeeded, so nothing was tuned: {cause}{limit_words}. "
                      f"The failed records are stored under the model's tasks.{first}",
                      trials=outcome.trials, failures=outcome.failures, limit=limit)
