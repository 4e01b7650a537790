"""Sibling trials: a task measures the best schedule of a task with the same anchor block.

A model's tasks often share their heavy block, fused with different elementwise ops:
ResNet-18's 19 tasks hold 4 such groups, 8 tasks in all (a stage's 3x3 convolution with
bias and ReLU, and with bias, the residual add and ReLU). MetaSchedule tunes them as
tasks of their own, each searching from its own records; with module_equality=
"anchor-block" it would tune one of each group and give the others its schedule, untuned
for their ops and unmeasured. hotdb keeps them separate tasks (the profile names them,
and their epilogues cost differently) and shares what they find instead: at a round's
start, a task whose sibling holds a faster record than its own best measures that
record's schedule applied to its own blocks (MetaSchedule's ScheduleUsingAnchorTrace, as
the anchor-block database applies it at compile time) as a trial of its own. The trial's
time enters the task's records, the cost model and the scheduler's count of the round's
trials, and the round's search starts from it when it is among the task's best: a search
stuck in one task's local optimum is left through its sibling's (in one ResNet-18 tune,
fused_conv2d9_add7_relu4 went from 15.4 ms to under 8.2 ms by its sibling trial, where
MetaSchedule's own trials of it that round measured 12-39 ms: bench/README.md).

A transferred schedule is postprocessed as MetaSchedule replays a record (the trace
without its postprocessing, then the postprocessors), so that the record it leaves is one
the evolutionary search can start from (it stops the tune on a record it cannot replay);
one that does not apply, or is measured already, is not tried.
"""

from __future__ import annotations

from dataclasses import dataclass

from hotdb.capture.tune.scheduler import FAILED_S, _run_secs

FAILED_RUN_S = 1e10  # the time MetaSchedule's AddToDatabase gives a failed trial


@dataclass
class SiblingTrial:
    task_id: int  # the task (its tune context) that measures it
    schedule: object  # a tvm.s_tir.Schedule of the task's module, postprocessed
    sibling: str  # the task whose record it is (its name, where the model names it)
    sibling_us: float  # that record's time a call, on the sibling


def sibling_trials(database, contexts, target, names: dict) -> list[SiblingTrial]:
    """For each task of `contexts` (MetaSchedule's tune contexts), the best record of
    `database` on another workload with the same anchor block, applied to the task, where
    it is faster than the task's own best and the task has not measured it yet. `names`
    maps task names to modules, to name a sibling outside the round."""
    from tvm.s_tir import meta_schedule as ms

    anchors = ms.database.MemoryDatabase(module_equality="anchor-block")  # MetaSchedule's rule
    exact = ms.database.MemoryDatabase()
    named = [(exact.commit_workload(mod), name) for name, mod in names.items()]
    workloads, best, traces = _best_records(database)
    groups = [anchors.commit_workload(w.mod) for w in workloads]
    trials = []
    for task_id, ctx in enumerate(contexts):
        own = _find(workloads, database.commit_workload(ctx.mod))
        own_s = best[own][0] if own in best else float("inf")
        group = anchors.commit_workload(ctx.mod)
        faster = [(secs, record) for k, (secs, record) in best.items()
                  if k != own and secs < own_s and groups[k].same_as(group)]
        if not faster:
            continue
        secs, record = min(faster, key=lambda pair: pair[0])
        schedule = _applied(ctx, record.trace, target)
        if schedule is None or _key(schedule.trace) in {_key(t) for t in traces.get(own, [])}:
            continue
        sibling = exact.commit_workload(record.workload.mod)
        name = next((n for w, n in named if w.same_as(sibling)), "a task outside the model")
        trials.append(SiblingTrial(task_id, schedule, name, secs * 1e6))
    return trials


def _best_records(database):
    """The database's workloads (in the order met), the best valid record of each (its
    mean time a call in seconds, the record) and the traces each holds (printed only for
    a task with a trial to make: a round's database holds all its earlier trials)."""
    workloads, best, traces = [], {}, {}
    for record in database.get_all_tuning_records():
        k = _find(workloads, record.workload)
        if k is None:
            workloads.append(record.workload)
            k = len(workloads) - 1
        traces.setdefault(k, []).append(record.trace)
        secs = [float(getattr(s, "value", s)) for s in record.run_secs or []]
        if secs and all(s < FAILED_S for s in secs):
            mean = sum(secs) / len(secs)
            if k not in best or mean < best[k][0]:
                best[k] = (mean, record)
    return workloads, best, traces


def _find(workloads: list, workload) -> int | None:
    return next((i for i, w in enumerate(workloads) if w.same_as(workload)), None)


def _key(trace) -> str:
    """A trace as MetaSchedule prints it, its decisions included: equal for a schedule and
    the record it left."""
    return "\n".join(trace.as_python(remove_postproc=True))


def _applied(ctx, anchor_trace, target):
    """`anchor_trace` applied to the task's module and postprocessed as MetaSchedule
    replays a record; None where it does not apply."""
    from tvm import s_tir
    from tvm.s_tir.meta_schedule.trace_apply import schedule_using_anchor_trace

    try:
        applied = s_tir.Schedule(ctx.mod)
        schedule_using_anchor_trace(applied, anchor_trace, target)
        replayed = s_tir.Schedule(ctx.mod)
        applied.trace.apply_to_schedule(replayed, remove_postproc=True)
        replayed.enter_postproc()
        if all(postproc.apply(replayed) for postproc in ctx.space_generator.postprocs):
            return replayed
    except Exception:  # noqa: BLE001 - TVM says "cannot apply" with many error kinds: not tried
        pass
    return None


def measure(trials: list[SiblingTrial], contexts, builder, runner, database, cost_model, target) -> list[list[float] | None]:
    """Build and run `trials` with the tune's builder and runner, and leave what
    MetaSchedule's measure callbacks leave: a record each in `database` (a failed trial
    with MetaSchedule's failure time) and the valid ones in `cost_model`. Each trial's run
    times in seconds, None where it failed."""
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.targets import device_kind

    args = [ms.arg_info.ArgInfo.from_entry_func(t.schedule.mod, remove_preproc=True) for t in trials]
    built = builder.build([ms.builder.BuilderInput(t.schedule.mod, target) for t in trials])
    ran = iter(runner.run([ms.runner.RunnerInput(b.artifact_path, device_kind(target), a)
                           for b, a in zip(built, args) if b.error_msg is None]))
    times = []
    for trial, build, arg in zip(trials, built, args):
        result = next(ran).result() if build.error_msg is None else None
        if build.error_msg is None:
            ms.utils.remove_build_dir(build.artifact_path)
        secs = _run_secs(result) if result is not None else None
        ctx = contexts[trial.task_id]
        database.commit_tuning_record(ms.database.TuningRecord(
            trial.schedule.trace, database.commit_workload(ctx.mod), result.run_secs if secs else [FAILED_RUN_S],
            target, arg))
        if secs and sum(secs) > 0:
            cost_model.update(ctx, [ms.MeasureCandidate(trial.schedule, arg)], [result])
        times.append(secs)
    return times
