"""hotdb's task scheduler: which task MetaSchedule measures next, and when it stops.

MetaSchedule's gradient scheduler (gradient_based.cc) dispatches every task once before
it joins any, and a task's records reach the database only when the task is joined. On
ResNet-18 with 32 trials over 19 tasks no task was picked twice, so its database stayed
empty until the last seconds of a 600 s tune (bench/README.md). It also picks by call
counts, not by where the time goes.

This scheduler:

* **joins each batch as soon as it is dispatched** (the next pick first joins the task in
  flight), so records land batch by batch and a tune stopped at any moment keeps every
  batch but the one in flight;
* **picks by expected gain in microseconds per inference**: a task's current time (its
  measured untuned time, or its calls times its best trial once it has one) times the
  share of it the next batch is expected to take away. An untried task is expected to
  lose half (on ResNet-18 here a first batch took conv2d kernels from 90 ms to 7-14 ms a
  call, so half is cautious), so the hottest tasks go first, in order of time; a tried
  task is expected to lose what its last batch took away, never less than half divided
  by its batches (the 1/n term of the gradient scheduler, so that a task that stalled
  once is tried again when its time is still large). A task's batches count over the
  rounds of a tune (TaskState.batches starts from the earlier rounds'), so a task tuned for
  rounds no longer expects half its time from its next batch, and an untried one outside
  the cut (hotdb/ops/tune.py: untried) is reached once its half beats that;
* **tries a converging task less**: that floor halves with each batch in a row, over the
  rounds, that took less than STALE_GAIN of the task's time away, from the second (one
  batch that found nothing is a stall, not convergence). By size alone, ResNet-18's
  stage-4 residual convolution (two calls, the largest task) took 175-228 of a tune's
  1,216 trials in both repeats of bench/README.md's run at 64 trials a task, at 7.0-7.4
  ms a call from the second round to the last, while the stride-2 convolutions waited at
  twice the time they reached later. A batch that finds a faster schedule gives the task
  its floor back. Counted in batches: counting trials instead (halving once per 8)
  changes only the cold round's batches of 2-3, and measured no better (bench/README.md);
* **stops when the trials are spent**, after joining the last batch (MetaSchedule is
  given one trial more than the budget, so that it asks once more instead of joining the
  last batch itself, unseen), or when fewer than a batch are left: a batch cannot be cut
  short, and one more passed the round's trials by up to a batch (MLP, 100 trials in
  batches of 16: 112); what is left goes to the next round;
* **stops at the deadline** by returning -1 before a batch that would not end in time
  (the batch's time is the last one measured), so that MetaSchedule ends normally.

Measured against the gradient scheduler with everything else equal (bench/README.md,
bench/tune_scheduler.py: ResNet-18's 10 hottest tasks, 12 trials): the same tasks were
measured, in the same order, but hotdb's first records landed after ~40 s and each batch's
after it, where the gradient scheduler's database stayed empty until its end (179 s). In
`hotdb tune` (bench/tune_rounds.py) that is the difference between a latency that falls
from the second minute and one that stays untuned for a whole tune.

The policy (`Policy`) is plain Python; `scheduler()` wraps it as a MetaSchedule
PyTaskScheduler.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from hotdb.rows import FAILED_RUN_SECS

FIRST_GAIN = 0.5  # share of an untried task's time its first batch is expected to take away
# a batch that takes less than this share of a task's time away found nothing: more than
# the 1-2 % by which the best of a batch's noisy measurements drifts down by itself
STALE_GAIN = 0.02


@dataclass
class TaskState:
    """One task as the scheduler sees it."""

    name: str
    untuned_us: float  # its kernels' measured time per inference, untuned
    calls: int  # calls per inference (MetaSchedule's task weight)
    trials: int = 0
    valid: int = 0
    outside: int = 0  # of its trials, those measured outside MetaSchedule's tune (sibling trials)
    best_s: float | None = None  # fastest trial, per call (seconds)
    batches: int = 0
    last_gain: float | None = None  # share of its time the last batch took away
    stale: int = 0  # batches in a row (over the rounds) that took less than STALE_GAIN away
    done: bool = False  # MetaSchedule terminated it, or it reached its trial limit

    @property
    def current_us(self) -> float:
        """Its time per inference with the best schedule found so far."""
        if self.best_s is None:
            return self.untuned_us
        return min(self.untuned_us, self.calls * self.best_s * 1e6)

    @property
    def expected_gain_us(self) -> float:
        if self.batches == 0:
            return self.current_us * FIRST_GAIN
        floor = FIRST_GAIN / (self.batches + 1) / 2 ** max(0, self.stale - 1)
        return self.current_us * max(self.last_gain or 0.0, floor)


@dataclass
class Policy:
    tasks: list[TaskState]
    per_task_max: int
    budget: int  # trials in all: picks stop once the joined batches leave fewer than a batch
    batch: int = 1  # trials a batch (MetaSchedule's num_trials_per_iter): it cannot be cut short
    deadline: float | None = None  # time.monotonic() when no new batch may start
    clock: object = time.monotonic
    batch_s: list[float] = field(default_factory=list)  # seconds each batch took, dispatch to join
    stopped: str | None = None  # why it returned -1
    _dispatched_at: float | None = None

    def pick(self) -> int:
        """The task to measure next, or -1 to stop."""
        alive = [i for i, t in enumerate(self.tasks) if not t.done and t.trials < self.per_task_max]
        left = self.budget - sum(t.trials for t in self.tasks)
        if left <= 0:
            self.stopped = "trials spent"
            return -1
        if not alive:
            self.stopped = "every task done"
            return -1
        # MetaSchedule's batch for a task: the batch, or what the task's limit leaves of the
        # trials MetaSchedule counts, which are not the sibling trials (siblings.py)
        alive = [i for i in alive if min(self.batch, self.per_task_max - self.tasks[i].trials
                                         + self.tasks[i].outside) <= left]
        if not alive:
            self.stopped = "trials spent"  # a batch more would pass the budget: the next round has the rest
            return -1
        if self.deadline is not None and self.clock() + self.expected_batch_s() > self.deadline:
            self.stopped = "deadline"
            return -1
        # ties (every task untried and of equal time) go to the first, the hottest listed
        best = max(alive, key=lambda i: (self.tasks[i].expected_gain_us, -i))
        self._dispatched_at = self.clock()
        return best

    def expected_batch_s(self) -> float:
        """The next batch's time: the median of the last three, 0 before any was measured."""
        recent = sorted(self.batch_s[-3:])
        return recent[len(recent) // 2] if recent else 0.0

    def joined(self, task_id: int, run_secs: list[list[float] | None], outside: bool = False) -> TaskState:
        """A batch of `task_id` came back: one list of run times per trial (None: failed);
        `outside`: measured outside MetaSchedule's tune (sibling trials)."""
        if self._dispatched_at is not None:
            self.batch_s.append(self.clock() - self._dispatched_at)
            self._dispatched_at = None
        task = self.tasks[task_id]
        before = task.current_us
        task.batches += 1
        for secs in run_secs:
            task.trials += 1
            task.outside += outside
            if secs and all(s < FAILED_RUN_SECS for s in secs):
                task.valid += 1
                mean = sum(secs) / len(secs)
                task.best_s = mean if task.best_s is None else min(task.best_s, mean)
        task.last_gain = (before - task.current_us) / before if before > 0 else 0.0
        task.stale = 0 if task.last_gain >= STALE_GAIN else task.stale + 1
        return task

    def seed(self, task_id: int, best_s: float) -> None:
        """A warm start: the best time records from elsewhere already give the task."""
        task = self.tasks[task_id]
        if math.isfinite(best_s) and best_s < FAILED_RUN_SECS:
            task.best_s = best_s if task.best_s is None else min(task.best_s, best_s)


def scheduler(policy: Policy, on_pick=None, on_join=None):
    """A MetaSchedule PyTaskScheduler that follows `policy`. `on_pick(task_id)` hears of
    each dispatch, `on_join(task_id, TaskState)` of each batch joined."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.task_scheduler import PyTaskScheduler

    @derived_object
    class HotspotScheduler(PyTaskScheduler):
        # join_running_task is not overridden: MetaSchedule's own joins (measure callbacks:
        # the database, the cost model) run, and their results are read here
        def next_task_id(self) -> int:
            records = self._outer().tasks_
            for i, record in enumerate(records):  # the batch in flight: join it now
                if record.runner_futures is not None:
                    results = self.join_running_task(i)
                    state = policy.joined(i, [_run_secs(r) for r in results])
                    if on_join:
                        on_join(i, state)
            for i, record in enumerate(records):
                policy.tasks[i].done = policy.tasks[i].done or bool(record.is_terminated)
            task_id = policy.pick()
            if task_id >= 0 and on_pick:
                on_pick(task_id)
            return task_id

    return HotspotScheduler()


def _run_secs(result) -> list[float] | None:
    """A RunnerResult's times in seconds; None for a failed trial."""
    if result.error_msg is not None or result.run_secs is None:
        return None
    return [float(getattr(s, "value", s)) for s in result.run_secs]
