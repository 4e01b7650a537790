"""The tuner process: `python -m hotdb.capture.tune.process`, started by hotdb/capture/tune/driver.py.

It reads jobs (JSON, one a line) on standard input and, for each, tunes the job's tasks with MetaSchedule under
hotdb's task scheduler (capture/tune/scheduler.py) into the job's work folder, and writes what
happens as JSON lines on its standard output, one event a line:

    {"event": "start", "tasks": [{"name", "warm_records", "warm_best_us"}...], "cost_model": "loaded"|"new"}
    {"event": "pick", "task": i, "name": ...}
    {"event": "joined", "task": i, "name", "trials", "valid", "batches", "stale" (over the rounds), "best_us", "current_us", "total_trials"}
    {"event": "sibling", "task": i, "name", "sibling", "sibling_us", "us", "seconds",
     "relative", "sibling_gflops", "own_gflops", "flop"}   (a sibling or relative trial: capture/tune/siblings.py)
    {"event": "worker_died", "returncode": code}      (a builder's or runner's worker process)
    {"event": "end", "stopped": why, "seconds": {part: s}}   (MetaSchedule's profiler; then the next job)
    {"event": "error", "message": ...}

Everything MetaSchedule and TVM print goes to the work folder's tune.log instead. Being a
process of its own, it can be stopped at once by a signal (a deadline, Ctrl-C) without
waiting for MetaSchedule to notice an interrupt, and a hang is the parent's to see.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

_events = None
_emitting = threading.Lock()  # the pools' threads say a worker's death too


def emit(event: str, **fields) -> None:
    with _emitting:
        _events.write(json.dumps({"event": event, **fields}) + "\n")
        _events.flush()


def main() -> int:
    """One job a line on standard input, each tuned in turn, until standard input ends."""
    global _events
    _events = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    _orphan_watch(os.getppid())
    _say_dead_workers()
    for line in sys.stdin:
        received = time.monotonic()  # the job's deadline counts from here, not from when its tasks are ready
        job = json.loads(line)
        work = Path(job["work_dir"])
        work.mkdir(parents=True, exist_ok=True)
        log = os.open(work / "tune.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(log, 1)  # MetaSchedule and TVM print on stdout and stderr (C++ too): into the log
        os.dup2(log, 2)
        os.close(log)
        try:
            stopped = run(job, work, received)
        except BaseException as exc:  # the parent says it; the traceback stays in the log
            traceback.print_exc()
            sys.stderr.flush()
            emit("error", message=f"{type(exc).__name__}: {exc}".strip().rstrip(":"))
            return 1
        emit("end", stopped=stopped, seconds=_seconds)
    return 0


def _orphan_watch(parent: int) -> None:
    """End with the hotdb process that started this one, however that one ended."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


def _say_dead_workers() -> None:
    """Say a MetaSchedule worker's death as its pool finds it, not when its batch is joined:
    the failed trial reaches the task's log only then, and the rest of a batch of 7, built
    on fresh workers, took over 60 s here. The hook is PopenWorker's own
    (tvm/support/popen_pool.py); where a TVM lacks it, the log still says it at the join."""
    from tvm.support import popen_pool

    found = getattr(popen_pool.PopenWorker, "_child_process_error", None)
    if found is None:
        return

    def child_process_error(worker):
        proc, code = getattr(worker, "_proc", None), None
        try:  # its pipe closed: it is ending, if not already gone
            code = proc.wait(timeout=1.0) if proc is not None else None
        except subprocess.TimeoutExpired:
            pass
        emit("worker_died", returncode=code)
        return found(worker)

    popen_pool.PopenWorker._child_process_error = child_process_error


def run(job: dict, work: Path, received: float) -> str:
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.profile import fuse
    from hotdb.capture.targets import parse_target
    from hotdb.capture.tune.intrinsics import import_intrinsics
    from hotdb.capture.tune.scheduler import Policy, TaskState, scheduler
    from hotdb.capture.tune.siblings import measure

    target = parse_target(job["target"])
    # its workers start beside what follows
    builder = _builder(job["build_timeout_s"], target.kind.name, job.get("cc"))
    import_intrinsics(target.kind.name)
    loaded = _model(job["model"])
    extracted = {t.task_name: t for t in ms.relax_integration.extract_tasks(fuse(loaded.mod, target), target)}
    missing = [t["name"] for t in job["tasks"] if t["name"] not in extracted]
    if missing:
        raise LookupError(f"tasks {', '.join(missing)} are not in the model as compiled now: the model or TVM "
                          "changed since the baseline run; profile it again")
    tasks = [extracted[t["name"]] for t in job["tasks"]]
    # MetaSchedule configures its logger anew for each tune, listing the handlers it has by
    # name: the next job would meet the last one's, bound to the last work folder
    ms_logger = logging.getLogger("tvm.s_tir.meta_schedule")
    for handler in list(ms_logger.handlers):
        ms_logger.removeHandler(handler)
        handler.close()
    cost_model, cost_model_state = _cost_model(job.get("cost_model"), ms)
    batch = _batch(job, cost_model)
    strategy = _search(cost_model, batch, ms)
    if not _ranks(cost_model):
        cost_model_state += ", untrained for this round: a small search"
    contexts, _ = ms.relax_integration.extracted_tasks_to_tune_contexts(
        tasks, str(work), strategy=strategy, num_threads="physical")
    database = ms.database.JSONDatabase(work_dir=str(work))
    policy = Policy([TaskState(t["name"], float(t["untuned_us"]), int(e.weight), batches=int(t["batches"]),
                              stale=int(t["stale"]))
                     for t, e in zip(job["tasks"], tasks)], per_task_max=job["per_task_max"],
                    budget=job["trials"], batch=batch, deadline=received + job["seconds"] if job.get("seconds") is not None else None)
    warm = [_seed(database, ctx.mod, job["warm"].get(t["name"], []), policy, i)
            for i, (t, ctx) in enumerate(zip(job["tasks"], contexts))]
    transfers = _transfers(job, database, contexts, target, extracted)
    shared = _sibling_trials(job, transfers, policy)
    emit("start", cost_model=cost_model_state, batch=batch, sibling_trials=len(shared),
         tasks=[{"name": t.name, "warm_records": n, "warm_best_us": t.best_s * 1e6 if t.best_s else None}
                for t, n in zip(policy.tasks, warm)])

    runner = _runner(job, work)

    def joined(task_id: int, state, batch_s: float | None = None) -> None:
        emit("joined", task=task_id, name=state.name, trials=state.trials, valid=state.valid, batches=state.batches,
             stale=state.stale, best_us=state.best_s * 1e6 if state.best_s is not None else None,
             current_us=state.current_us, total_trials=sum(t.trials for t in policy.tasks), batch_s=batch_s)

    def measured(trials: list) -> None:
        """Sibling and relative trials measured, said, and counted (as measured outside MetaSchedule's tune)."""
        started = time.monotonic()
        with ms.Profiler.timeit("SiblingTrials"):
            times = measure(trials, contexts, builder, runner, database, cost_model, target)
        each_s = (time.monotonic() - started) / len(trials)  # the batches' seconds count them (driver)
        for trial, secs in zip(trials, times):
            emit("sibling", task=trial.task_id, name=policy.tasks[trial.task_id].name, sibling=trial.sibling,
                 sibling_us=trial.sibling_us, us=sum(secs) / len(secs) * 1e6 if secs else None, seconds=each_s,
                 relative=trial.relative, sibling_gflops=trial.sibling_gflops, own_gflops=trial.own_gflops,
                 flop=trial.flop)
            joined(trial.task_id, policy.joined(trial.task_id, [secs], outside=True))

    def batch_joined(task_id: int, state) -> None:
        joined(task_id, state, policy.batch_s[-1] if policy.batch_s else None)
        # what the batch found, given to its family at once; what that gives, in turn
        waiting = [task_id] if transfers is not None else []
        while waiting:
            found = _within(transfers.after(waiting.pop(0)), policy, job["trials"] // 2)
            if found:
                measured(found)
                waiting += sorted({t.task_id for t in found})

    with ms.Profiler() as profiler:  # where the time goes: bench/tune_fleet.py reads it
        if shared:
            measured(shared)
        ms.tune_tasks(tasks=contexts, task_weights=[max(float(t["share_pct"]), 1e-3) for t in job["tasks"]],
                      work_dir=str(work), max_trials_global=job["trials"] + 1, max_trials_per_task=job["per_task_max"],
                      num_trials_per_iter=batch, database=database, cost_model=cost_model,
                      builder=builder, runner=runner,
                      task_scheduler=scheduler(policy, on_pick=lambda i: emit("pick", task=i, name=policy.tasks[i].name),
                                               on_join=batch_joined))
    _save_cost_model(cost_model, job.get("cost_model"))
    _seconds.clear()
    _seconds.update({str(k): float(v) for k, v in profiler.get().items()})
    return policy.stopped or "trials spent"


_seconds: dict = {}  # MetaSchedule's profile of the last job, said with its end


def _transfers(job: dict, database, contexts, target, extracted: dict):
    """The round's sibling and relative trials (capture/tune/siblings.py: Transfers). None
    under a deadline: they are measured outside MetaSchedule's batches, whose time the
    scheduler's deadline reckons with."""
    from hotdb.capture.tune.siblings import Transfers

    if job.get("seconds") is not None:
        return None
    return Transfers(database, contexts, target, {n: e.dispatched[0] for n, e in extracted.items()})


def _sibling_trials(job: dict, transfers, policy) -> list:
    """The round's sibling trials at its start, within half its trials and each task's limit."""
    if transfers is None:
        return []
    return _within(transfers.at_start(), policy, job["trials"] // 2)


def _within(trials: list, policy, most: int) -> list:
    """Of `trials`, those within each task's limit and the round's trials left, while the
    round's sibling trials stay within `most`."""
    room = min(policy.budget - sum(t.trials for t in policy.tasks), most - sum(t.outside for t in policy.tasks))
    kept, trials_of = [], {i: t.trials for i, t in enumerate(policy.tasks)}
    for trial in trials:
        if len(kept) < room and trials_of[trial.task_id] < policy.per_task_max:
            kept.append(trial)
            trials_of[trial.task_id] += 1
    return kept


def _runner(job: dict, work: Path):
    """Where candidates are measured: here (LocalRunner), or on every device the job's
    tracker key holds, at once (capture/tune/runner.py)."""
    from tvm.s_tir import meta_schedule as ms

    if not job.get("rpc"):
        return ms.runner.LocalRunner(timeout_sec=job["run_timeout_s"])
    from hotdb.capture.tune.runner import DEVICE_LOG, rpc_runner

    return rpc_runner(job["rpc"], len(job.get("devices") or [None]), job["run_timeout_s"], str(work / DEVICE_LOG))


_models: dict = {}
_kept: list = []  # the builder of the last job


def _builder(timeout_s: float, target_kind: str, cc: str | None):
    """The builder, its workers kept for the rounds of a tune (capture/tune/builder.py)."""
    from hotdb.capture.tune.builder import BUILD_WORKERS, kept_builder

    if _kept and (_kept[0].timeout_s, _kept[0].target_kind, _kept[0].cc) != (timeout_s, target_kind, cc):
        _kept.pop().close()
    if not _kept:
        _kept.append(kept_builder(BUILD_WORKERS, timeout_s, target_kind, cc))
        _kept[0].start()
    return _kept[0]


def _model(spec: str):
    """The model, loaded once for the rounds of a tune."""
    from hotdb.capture.models import load_model

    if spec not in _models:
        _models[spec] = load_model(spec)
    return _models[spec]


def _seed(database, mod, lines: list[str], policy, task_id: int) -> int:
    """Commit the warm records (tuning-record lines of other tunes of the same workload and
    target, best first) into the work database, unless it holds records of the workload
    already (an earlier round seeded it, or tuned it): the records MetaSchedule's
    evolutionary search starts from. The task's best so far, seeded or held, is the
    scheduler's to count. How many were committed."""
    from tvm.s_tir import meta_schedule as ms

    workload = database.commit_workload(mod)
    held = database.get_top_k(workload, 1)
    if held:  # the task starts from its best so far, seeded or tuned
        _count_best(policy, task_id, held[0])
        return 0
    seeded = 0
    for line in lines:
        try:
            record = ms.database.TuningRecord.from_json(json.loads(line)[1], workload)
        except Exception as exc:  # noqa: BLE001 - a record TVM no longer reads is skipped, and said
            print(f"warm record skipped: {type(exc).__name__}: {exc}", flush=True)
            continue
        database.commit_tuning_record(record)
        seeded += 1
        _count_best(policy, task_id, record)
    return seeded


def _count_best(policy, task_id: int, record) -> None:
    secs = [float(getattr(s, "value", s)) for s in record.run_secs or []]
    if secs:
        policy.seed(task_id, sum(secs) / len(secs))


def _cost_model(path: str | None, ms):
    """MetaSchedule's XGBoost cost model, as the last tune for this target left it: it
    predicts at random until it has seen 100 trials, so a model started anew makes every
    small tune start cold."""
    model = ms.cost_model.XGBModel(num_tuning_cores=os.cpu_count() or 1, tree_method="auto")
    if path and Path(path).is_file():
        try:
            model.load(path)
            return model, f"loaded ({model.data_size} trials seen)"
        except Exception as exc:  # noqa: BLE001 - a damaged file costs a cold start, not the tune
            print(f"cost model {path} not loaded: {type(exc).__name__}: {exc}", flush=True)
            model = ms.cost_model.XGBModel(num_tuning_cores=os.cpu_count() or 1, tree_method="auto")
    return model, "new"


# The evolutionary search while the cost model predicts at random: a population of 64 (of
# 512) evolved once (of 4). It still holds a fifth of measured records and their mutants,
# so a warm start searches near its best; what it no longer does is rank thousands of
# candidates by random scores. One batch's search of a ResNet-18 convolution took 20-52 s
# with the default on this 2-core machine beside two busy processes, 1-2.6 s so
# (bench/README.md, "Tuning to the end result").
RANDOM_MODEL_SEARCH = {"population_size": 64, "genetic_num_iters": 1}


# Once the cost model ranks, the search scales with its batch. MetaSchedule's default (a
# population of 512 evolved 4 times) costs 30-40 s a batch whatever its size, so it pays
# only at MetaSchedule's batch of 64 trials; but at 64 trials a task, a round's batches of
# 64 reached 2 of the 11 tasks of ResNet-18's cut, and three such rounds took it from 171
# to 156 ms in 300 s (bench/README.md, "At the budget people use"). A population of 8 a
# trial of the batch, evolved as often, keeps the search's seconds a trial the default's
# at 64, and a round's batches reach its tasks. A batch is of 8 trials at least: below,
# the search's fixed part (50 random samples, the measured records) outweighs its trials.
POPULATION_A_TRIAL = 8
RANKED_BATCH_MIN = 8


# MetaSchedule measures a share eps_greedy (5 %) of a batch from random samples of the
# space instead of the cost model's picks, its only exploration; it counts them as
# int(batch x eps_greedy) (evolutionary_search.cc: PickWithEpsGreedy): 3 at its batch of
# 64, none below 20. At hotdb's batches of 8-16 every trial was the model's pick: one
# ResNet-18 repeat kept its hottest task at 12 ms a call through 216 trials, its tiles in
# a local optimum the model never left, where the other repeat found 6 ms
# (bench/README.md, "At the budget people use"). A ranked batch keeps the default's
# share, rounded, and one random sample at least.
EXPLORE_SHARE = 0.05


def _eps_greedy(batch: int) -> float:
    """The eps_greedy that gives a ranked batch of `batch` round(EXPLORE_SHARE x batch)
    random samples, one at least, after MetaSchedule truncates (the half keeps float error
    off the boundary); below RANKED_BATCH_MIN (a deadline's pairs) MetaSchedule's own,
    which leaves the batch to the model."""
    if batch < RANKED_BATCH_MIN:
        return EXPLORE_SHARE
    return (max(1, round(EXPLORE_SHARE * batch)) + 0.5) / batch


def _ranks(cost_model) -> bool:
    """Whether XGBModel ranks by what it learnt: it scores at random until it has seen
    `num_warmup_samples` (100) trials."""
    return cost_model.data_size >= cost_model.num_warmup_samples


def _search(cost_model, batch: int, ms):
    """MetaSchedule's evolutionary search for a batch of `batch` trials: small while the
    cost model predicts at random (XGBModel scores at random until it has seen
    `num_warmup_samples`, 100, trials, and ranking by random scores buys nothing with its
    time), else a population of POPULATION_A_TRIAL a trial, MetaSchedule's 512 at most,
    and random samples for the batch's share EXPLORE_SHARE (_eps_greedy).
    The choice holds for the round: a cold round searches small throughout (its later
    batches still rank the small population by the model, trained once it has seen 100)."""
    if not _ranks(cost_model):
        return ms.search_strategy.EvolutionarySearch(**RANDOM_MODEL_SEARCH)
    population = POPULATION_A_TRIAL * batch
    if population >= 512:
        return "evolutionary"
    return ms.search_strategy.EvolutionarySearch(population_size=max(population, RANDOM_MODEL_SEARCH["population_size"]),
                                                 eps_greedy=_eps_greedy(batch))


def _batch(job: dict, cost_model) -> int:
    """Trials a batch: the driver's (a few a task: records land batch by batch), and once
    the cost model ranks at least RANKED_BATCH_MIN, within the job's trials and limit per
    task. Not under a deadline: there a stop loses the batch in flight
    (driver.TunePlan.batch_max)."""
    if _ranks(cost_model) and job.get("seconds") is None:
        return max(job["batch"], min(RANKED_BATCH_MIN, job["per_task_max"], job["trials"]))
    return job["batch"]


def _save_cost_model(model, path: str | None) -> None:
    """Saved beside, then renamed over the old one: two tunes saving at once leave one
    whole file."""
    if not path or model.data_size == 0:
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    part = f"{path}.{os.getpid()}.part"
    model.save(part)
    os.replace(part, path)


if __name__ == "__main__":
    sys.exit(main())
