"""Sibling trials: a task measures the best schedule of a task with the same anchor block.

A model's tasks often share their heavy block, fused with different elementwise ops:
ResNet-18's 19 tasks hold 4 such groups, 8 tasks in all (a stage's 3x3 convolution with
bias and ReLU, and with bias, the residual add and ReLU). MetaSchedule tunes them as
tasks of their own, each searching from its own records; with module_equality=
"anchor-block" it would tune one of each group and give the others its schedule, untuned
for their ops and unmeasured. hotdb keeps them separate tasks (the profile names them,
and their epilogues cost differently) and shares what they find instead: a task whose
sibling holds a faster record than its own best measures that record's schedule applied
to its own blocks (MetaSchedule's ScheduleUsingAnchorTrace, as the anchor-block
database applies it at compile time) as a trial of its own. The trial's
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

Both are made as soon as the donor's record is there (`Transfers`): at a round's start,
from what the rounds before found, and within a round each time a batch (or a transfer)
gives a task a new best, to the round's other tasks of its family.
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


class Transfers:
    """A round's sibling and relative trials: at its start, those the database gives
    (`at_start`); then, as a batch or a trial gives a task a new best, those that
    best gives the round's other tasks of its family (`after`), by the same rule. Made at
    once rather than at the next round's start: on ResNet-18 a round lasts ~80 s, and the
    transfers a round's start made from the round before took the model from 115 to 106 ms
    within its first 20 s (bench/README.md)."""

    def __init__(self, database, contexts, target, names: dict):
        """`names` maps task names to modules, to name a sibling outside the round."""
        self.donors = _Donors(database, names)
        self.contexts, self.target = contexts, target
        self.tasks = [self.donors.task(ctx) for ctx in contexts]

    def at_start(self) -> list[SiblingTrial]:
        """For each task of the round (MetaSchedule's tune contexts), the best record of
        `database` on another workload with the same anchor block, applied to the task, where
        it is faster than the task's own best; and the best record of its RELATIVE_DONORS
        nearest relatives in shape (the same blocks on other shapes) whose best runs at
        RELATIVE_MARGIN times the FLOP/s of the task's best or more, its tiles fitted. Each
        only where the task has not measured it yet."""
        return [trial for task_id in range(len(self.contexts)) for trial in self._trials(task_id)]

    def after(self, task_id: int) -> list[SiblingTrial]:
        """The trials the task's best, where it is new since the last look, gives the
        round's other tasks that share its anchor block or its blocks."""
        task = self.tasks[task_id]
        if not self.donors.refresh(task, self.contexts[task_id]):
            return []
        family = [j for j, other in enumerate(self.tasks) if j != task_id and (
            other["group"].same_as(task["group"])
            or (task["shape"].blocks is not None and other["shape"].blocks == task["shape"].blocks))]
        for j in family:  # a recipient's own best moved too (its batches, its trials)
            self.donors.refresh(self.tasks[j], self.contexts[j])
        return [trial for j in family for trial in self._trials(j)]

    def _trials(self, task_id: int) -> list[SiblingTrial]:
        ctx, task = self.contexts[task_id], self.tasks[task_id]
        return self.donors.sibling(task_id, ctx, task, self.target) + self.donors.relatives(task_id, ctx, task)


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
        self.offered: set = set()  # (task, donor workload, its best's time): looked at once

    def task(self, ctx) -> dict:
        """What the donors are weighed against: the task's workload, best, group, shape."""
        own = _find(self.workloads, self.database.commit_workload(ctx.mod))
        return {"own": own, "own_s": self.best[own][0] if own in self.best else float("inf"),
                "group": self.anchors.commit_workload(ctx.mod),
                "shape": self.shapes[own] if own is not None else _Shape(ctx.mod),
                "measured": _Measured(self.traces.get(own, []))}

    def refresh(self, task: dict, ctx) -> bool:
        """Read the task's best from the database (a batch joined, a trial measured);
        whether it is new. A task's first record makes its workload a donor."""
        top = self.database.get_top_k(self.database.commit_workload(ctx.mod), 1)
        secs = [float(getattr(s, "value", s)) for s in (top[0].run_secs if top else None) or []]
        if not secs or sum(secs) / len(secs) >= task["own_s"]:
            return False
        if task["own"] is None:
            self.workloads.append(top[0].workload)
            self.groups.append(task["group"])
            self.shapes.append(task["shape"])
            task["own"] = len(self.workloads) - 1
        task["own_s"] = sum(secs) / len(secs)
        self.best[task["own"]] = (task["own_s"], top[0])
        return True

    def sibling(self, task_id: int, ctx, task: dict, target) -> list[SiblingTrial]:
        faster = [(secs, k, record) for k, (secs, record) in self.best.items()
                  if k != task["own"] and secs < task["own_s"] and self.groups[k].same_as(task["group"])]
        if not faster:
            return []
        secs, k, record = min(faster, key=lambda found: found[0])
        if not self._new_offer(task_id, k, secs):
            return []
        schedule = _applied(ctx, record.trace, target)
        if schedule is None or not task["measured"].first(schedule):
            return []
        return [SiblingTrial(task_id, schedule, self.name_of(record), secs * 1e6)]

    def relatives(self, task_id: int, ctx, task: dict) -> list[SiblingTrial]:
        shape = task["shape"]
        own_rate = shape.flop / task["own_s"] if task["own_s"] > 0 else math.inf
        nearest = sorted(((shape.distance(self.shapes[k]), self.shapes[k].flop / secs, secs, k, record)
                          for k, (secs, record) in self.best.items()
                          if secs > 0 and k != task["own"] and not self.groups[k].same_as(task["group"])
                          and shape.blocks is not None and self.shapes[k].blocks == shape.blocks
                          and self.shapes[k].flop / secs > RELATIVE_MARGIN * own_rate), key=lambda r: r[0])
        trials = []
        for _, rate, secs, k, record in nearest[:RELATIVE_DONORS]:
            if not self._new_offer(task_id, k, secs):
                continue
            schedule = _fitted(ctx, record.trace)
            if schedule is not None and task["measured"].first(schedule):
                trials.append(SiblingTrial(task_id, schedule, self.name_of(record), secs * 1e6, relative=True,
                                           sibling_gflops=rate / 1e9, own_gflops=own_rate / 1e9 or None,
                                           flop=shape.flop))
        return trials

    def _new_offer(self, task_id: int, k: int, secs: float) -> bool:
        """Whether the donor's best is offered to the task for the first time: a schedule
        applied and postprocessed takes ~0.1 s, and a round looks again after each batch."""
        offer = (task_id, k, secs)
        new = offer not in self.offered
        self.offered.add(offer)
        return new

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
    times, learnt = [], {}
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
            candidates, results = learnt.setdefault(trial.task_id, ([], []))
            candidates.append(ms.MeasureCandidate(trial.schedule, arg))
            results.append(result)
        times.append(secs)
    for task_id, (candidates, results) in learnt.items():  # XGBModel retrains at each update: once a task
        cost_model.update(contexts[task_id], candidates, results)
    return times
