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

Relative trials carry a schedule further: to a task with the same blocks (the same ops,
fused alike) on other shapes, such as ResNet's 3x3 convolutions of its four stages. The
relative's best trace is replayed on the task with each tile size decision fitted to the
task's own loop extent (`fit_tiles`: the same inner factors where they divide it, the
nearest divisors where not, the rest outermost), as transfer-tuning reuses a kernel's
schedule for others (Gibson and Cano, "Transfer-Tuning: Reusing Auto-Schedules for
Efficient Tensor Program Code Generation", PACT 2022). Shapes differ, so times do not
compare: of the relatives whose best runs at RELATIVE_MARGIN times the FLOP/s of the
task's best or more, the task takes from the RELATIVE_DONORS nearest in shape (loop
extents), each record once. On ResNet-18 after MetaSchedule's first 123 trials
(bench/README.md), the stage-1 residual convolution's best fitted to stage 2's ran 2.57x
faster than that task's own best (11.7 to 4.6 ms), stage 4's fitted to stage 3's 1.64x;
11 of 15 such trials, given by the three fastest relatives whatever their shape or
family, were slower than the task's best, and each cost a trial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hotdb.capture.tune.scheduler import _run_secs
from hotdb.rows import FAILED_RUN_SECS

FAILED_RUN_S = 1e10  # the time MetaSchedule's AddToDatabase gives a failed trial
RELATIVE_DONORS = 1  # relatives a task takes a schedule from in a round: the nearest in shape
RELATIVE_MARGIN = 1.25  # ... of those whose best runs at this many times the task's best FLOP/s


@dataclass
class SiblingTrial:
    task_id: int  # the task (its tune context) that measures it
    schedule: object  # a tvm.s_tir.Schedule of the task's module, postprocessed
    sibling: str  # the task whose record it is (its name, where the model names it)
    sibling_us: float  # that record's time a call, on the sibling
    relative: bool = False  # the sibling's blocks are the task's on other shapes: its tiles fitted
    sibling_gflops: float | None = None  # a relative's: its record's FLOP/s, in GFLOP/s
    own_gflops: float | None = None  # a relative trial's task's best before it, in GFLOP/s (None: none)
    flop: float | None = None  # a relative trial's task's floating-point operations a call


def sibling_trials(database, contexts, target, names: dict) -> list[SiblingTrial]:
    """For each task of `contexts` (MetaSchedule's tune contexts), the best record of
    `database` on another workload with the same anchor block, applied to the task, where
    it is faster than the task's own best; and the best record of its RELATIVE_DONORS
    nearest relatives in shape (the same blocks on other shapes) whose best runs at
    RELATIVE_MARGIN times the FLOP/s of the task's best or more, its tiles fitted. Each
    only where the task has not measured it yet. `names` maps task names to modules, to
    name a sibling outside the round."""
    donors = _Donors(database, names)
    trials = []
    for task_id, ctx in enumerate(contexts):
        task = donors.task(ctx)
        trials += donors.sibling(task_id, ctx, task, target) + donors.relatives(task_id, ctx, task)
    return trials


class _Donors:
    """The records a round's tasks may take a schedule from: each workload's best."""

    def __init__(self, database, names: dict):
        from tvm.s_tir import meta_schedule as ms

        self.database = database
        self.anchors = ms.database.MemoryDatabase(module_equality="anchor-block")  # MetaSchedule's rule
        self.exact = ms.database.MemoryDatabase()
        self.named = [(self.exact.commit_workload(mod), name) for name, mod in names.items()]
        self.workloads, self.best, self.traces = _best_records(database)
        self.groups = [self.anchors.commit_workload(w.mod) for w in self.workloads]
        self.shapes = [_Shape(w.mod) for w in self.workloads]

    def task(self, ctx) -> dict:
        """What the donors are weighed against: the task's workload, best, group, shape."""
        own = _find(self.workloads, self.database.commit_workload(ctx.mod))
        return {"own": own, "own_s": self.best[own][0] if own in self.best else float("inf"),
                "group": self.anchors.commit_workload(ctx.mod),
                "shape": self.shapes[own] if own is not None else _Shape(ctx.mod),
                "measured": _Measured(self.traces.get(own, []))}

    def sibling(self, task_id: int, ctx, task: dict, target) -> list[SiblingTrial]:
        faster = [(secs, record) for k, (secs, record) in self.best.items()
                  if k != task["own"] and secs < task["own_s"] and self.groups[k].same_as(task["group"])]
        if not faster:
            return []
        secs, record = min(faster, key=lambda pair: pair[0])
        schedule = _applied(ctx, record.trace, target)
        if schedule is None or not task["measured"].first(schedule):
            return []
        return [SiblingTrial(task_id, schedule, self.name_of(record), secs * 1e6)]

    def relatives(self, task_id: int, ctx, task: dict) -> list[SiblingTrial]:
        shape = task["shape"]
        own_rate = shape.flop / task["own_s"] if task["own_s"] > 0 else math.inf
        nearest = sorted(((shape.distance(self.shapes[k]), self.shapes[k].flop / secs, secs, record)
                          for k, (secs, record) in self.best.items()
                          if secs > 0 and k != task["own"] and not self.groups[k].same_as(task["group"])
                          and shape.blocks is not None and self.shapes[k].blocks == shape.blocks
                          and self.shapes[k].flop / secs > RELATIVE_MARGIN * own_rate), key=lambda r: r[0])
        trials = []
        for _, rate, secs, record in nearest[:RELATIVE_DONORS]:
            schedule = _fitted(ctx, record.trace)
            if schedule is not None and task["measured"].first(schedule):
                trials.append(SiblingTrial(task_id, schedule, self.name_of(record), secs * 1e6, relative=True,
                                           sibling_gflops=rate / 1e9, own_gflops=own_rate / 1e9 or None,
                                           flop=shape.flop))
        return trials

    def name_of(self, record) -> str:
        sibling = self.exact.commit_workload(record.workload.mod)
        return next((n for w, n in self.named if w.same_as(sibling)), "a task outside the model")


class _Measured:
    """A task's measured traces, printed only once a trial is to be checked against them
    (a round's database holds all its earlier trials)."""

    def __init__(self, traces: list):
        self.traces, self.keys = traces, None

    def first(self, schedule) -> bool:
        """Whether `schedule` is not measured yet (nor made a trial before in the round)."""
        if self.keys is None:
            self.keys = {_key(t) for t in self.traces}
        key = _key(schedule.trace)
        new = key not in self.keys
        self.keys.add(key)
        return new


class _Shape:
    """What a task's module is made of, for relatives: its blocks' names in order (the ops,
    fused alike) and its floating-point operations a call (TVM's estimate; 0 if none)."""

    def __init__(self, mod):
        from tvm import s_tir

        self.blocks, self.flop, self.extents = None, 0.0, []
        try:
            schedule = s_tir.Schedule(mod)
            blocks = schedule.get_child_blocks(schedule.get_sblock("root"))
            self.blocks = [schedule.get(b).name_hint for b in blocks]
            self.flop = float(s_tir.analysis.estimate_tir_flops(mod))
            self.extents = [int(schedule.get(loop).extent) for b in blocks for loop in schedule.get_loops(b)]
        except Exception:  # noqa: BLE001 - a module TVM cannot read so (a dynamic extent) is nobody's relative
            self.blocks, self.flop, self.extents = None, 0.0, []

    def distance(self, other: "_Shape") -> float:
        """How far apart two modules of the same blocks are: their loop extents' ratios,
        in log, summed (inf where their loops differ in number)."""
        if len(self.extents) != len(other.extents):
            return math.inf
        return sum(abs(math.log(a / b)) for a, b in zip(self.extents, other.extents) if a > 0 and b > 0)


def fit_tiles(factors: list[int], extent: int, max_innermost: int) -> list[int]:
    """A tile size decision of `factors` (outer to inner) for a loop of `extent`: each
    inner factor the divisor of what is left nearest it (by ratio; the smaller on a tie),
    the innermost at most `max_innermost` (where positive), the outermost what remains."""
    if math.prod(factors) == extent:
        return list(factors)
    rest, inner = extent, []
    for i, factor in enumerate(reversed(factors[1:])):
        options = [d for d in _divisors(rest) if i or max_innermost <= 0 or d <= max_innermost]
        nearest = min(options, key=lambda d: (abs(math.log(d / max(factor, 1))), d))
        inner.append(nearest)
        rest //= nearest
    return [rest, *reversed(inner)]


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def _fitted(ctx, trace):
    """`trace` (a relative's) replayed on the task's module with its tile sizes fitted to
    the task's loops, then postprocessed as MetaSchedule replays a record; None where it
    does not apply."""
    from tvm import s_tir

    def fitted(instruction, inputs, attrs, decision):
        if instruction.kind.name != "SamplePerfectTile" or decision is None:
            return decision
        extent = int(applied.get(inputs[0]).extent)
        return fit_tiles([int(f) for f in decision], extent, int(attrs[1]))

    try:
        applied = s_tir.Schedule(ctx.mod)
        trace.apply_to_schedule(applied, remove_postproc=True, decision_provider=fitted)
        return _postprocessed(ctx, applied.trace)
    except Exception:  # noqa: BLE001 - TVM says "cannot apply" with many error kinds: not tried
        return None


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
        if secs and all(s < FAILED_RUN_SECS for s in secs):
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
        return _postprocessed(ctx, applied.trace)
    except Exception:  # noqa: BLE001 - TVM says "cannot apply" with many error kinds: not tried
        return None


def _postprocessed(ctx, trace):
    """`trace` replayed on a fresh schedule of the task's module without its
    postprocessing, then the task's postprocessors: the record MetaSchedule's search can
    start from. None where a postprocessor rejects it (TVM's errors are the caller's)."""
    from tvm import s_tir

    replayed = s_tir.Schedule(ctx.mod)
    trace.apply_to_schedule(replayed, remove_postproc=True)
    replayed.enter_postproc()
    if all(postproc.apply(replayed) for postproc in ctx.space_generator.postprocs):
        return replayed
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
