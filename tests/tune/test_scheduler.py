"""hotdb's task scheduler as a policy (hotdb/capture/tune/scheduler.py), without MetaSchedule:
which task it picks, when it stops. Its use inside MetaSchedule is tested by the tunes of
tests/tune/test_tune.py."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.capture.tune.scheduler import STALE_GAIN, Policy, TaskState
from hotdb.rows import FAILED_RUN_SECS


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def policy(times_us, *, budget=100, per_task_max=100, deadline=None, clock=None) -> Policy:
    return Policy([TaskState(f"t{i}", us, 1) for i, us in enumerate(times_us)], per_task_max=per_task_max,
                  budget=budget, deadline=deadline, clock=clock or Clock())


def test_untried_tasks_go_hottest_first():
    p = policy([10.0, 300.0, 50.0, 300.0])
    order = []
    for _ in range(3):
        i = p.pick()
        order.append(i)
        p.joined(i, [[p.tasks[i].untuned_us * 0.05e-6]])  # each batch takes 95 % away
    assert order == [1, 3, 2]  # ties to the first listed; the 10 us task waits for larger gains


def test_a_task_whose_trials_failed_is_tried_again_with_less_hope():
    p = policy([300.0, 120.0])
    p.joined(p.pick(), [None, None])  # all failed: 300 us left, expected to lose a quarter (75)
    assert p.tasks[0].current_us == 300.0 and p.tasks[0].valid == 0
    assert p.pick() == 0  # 75 us expected beats the untried task's 60
    p.joined(0, [None])
    assert p.pick() == 1  # a sixth of 300 (50) does not


def test_a_task_that_got_much_faster_yields_to_one_still_slow():
    p = policy([1000.0, 600.0])
    assert p.pick() == 0
    p.joined(0, [[100e-6]])  # 1000 us -> 100 us a call: its remaining time is small
    assert p.tasks[0].current_us == 100.0 and p.tasks[0].last_gain == 0.9
    assert p.pick() == 1


def test_a_task_whose_time_stays_large_is_tried_again():
    p = policy([1000.0, 100.0])
    p.pick()
    p.joined(0, [[900e-6]])  # gained 10 %: 900 us left, expected to lose 25 % of it next
    assert p.pick() == 0  # 225 us expected beats the untried task's 50 us


def test_batches_of_earlier_rounds_temper_what_a_task_expects():
    """A round starts each task from its time in the latest profile; a task tuned for
    seven batches in earlier rounds expects an eighth of half its time from the next, so
    an untried task outside the cut, a fifth as slow, goes first; anew it would not."""
    tuned, fresh = TaskState("hot", 15_000.0, 2, batches=7), TaskState("tail", 4_500.0, 1)
    p = Policy([tuned, fresh], per_task_max=100, budget=100, clock=Clock())
    assert tuned.expected_gain_us == 15_000.0 * 0.5 / 8 < fresh.expected_gain_us == 2_250.0
    assert p.pick() == 1
    assert policy([15_000.0, 4_500.0]).pick() == 0


def test_it_stops_when_the_trials_are_spent_or_every_task_is_done():
    p = policy([100.0, 50.0], budget=3)
    for _ in range(3):
        p.joined(p.pick(), [[1e-6]])
    assert p.pick() == -1 and p.stopped == "trials spent"
    # a batch cannot be cut short: with 3 of 10 left and batches of 4, the round stops
    # (the next one has the 3); a task whose limit leaves it 3 or fewer still fits
    r = Policy([TaskState("a", 100.0, 1), TaskState("b", 50.0, 1)], per_task_max=8, budget=10, batch=4, clock=Clock())
    r.joined(r.pick(), [[1e-6]] * 4)
    r.joined(r.pick(), [[1e-6]] * 3)
    assert r.pick() == -1 and r.stopped == "trials spent"
    r.per_task_max, r.stopped = 6, None
    assert r.pick() >= 0
    q = policy([100.0], per_task_max=2)
    q.joined(q.pick(), [[1e-6], [2e-6]])
    assert q.pick() == -1 and q.stopped == "every task done"


def test_it_stops_before_a_batch_that_would_end_past_the_deadline():
    clock = Clock()
    p = policy([100.0, 50.0], deadline=100.0, clock=clock)
    assert p.pick() == 0  # no batch measured yet: nothing says it would not fit
    clock.now = 30.0
    p.joined(0, [[50e-6]])
    assert p.expected_batch_s() == 30.0
    clock.now = 60.0
    assert p.pick() >= 0  # 60 + 30 <= 100
    clock.now = 75.0
    p.joined(1, [[20e-6]])
    # the next batch is expected to take 30 s (the upper median of 30 and 15): 75 + 30 > 100
    assert p.pick() == -1 and p.stopped == "deadline"


def test_a_warm_start_counts_the_records_it_starts_from():
    p = policy([1000.0, 400.0])
    p.seed(0, 50e-6)  # other tunes reached 50 us a call: 950 us of the 1000 are gone already
    assert p.tasks[0].current_us == 50.0
    assert p.pick() == 1
    p.seed(1, FAILED_RUN_SECS * 10)  # a failure mark is no time
    assert p.tasks[1].best_s is None


@settings(max_examples=200, deadline=None)
@given(times=st.lists(st.floats(1.0, 1e6), min_size=1, max_size=8),
       results=st.lists(st.one_of(st.none(), st.floats(1e-7, 1.0)), max_size=60),
       budget=st.integers(1, 40), per_task_max=st.integers(1, 12), batch=st.integers(1, 8))
def test_picks_are_alive_tasks_and_never_pass_the_budget(times, results, budget, per_task_max, batch):
    """MetaSchedule measures a picked task's batch, or what its limit leaves: the picks
    never take the trials past the budget, and stop only when no task's batch fits."""
    p = Policy([TaskState(f"t{i}", us, 1) for i, us in enumerate(times)], per_task_max=per_task_max,
               budget=budget, batch=batch, clock=Clock())
    results = iter(results)
    while (i := p.pick()) != -1:
        size = min(batch, per_task_max - p.tasks[i].trials)
        assert p.tasks[i].trials < per_task_max and sum(t.trials for t in p.tasks) + size <= budget
        before = p.tasks[i].current_us
        p.joined(i, [None if s is None else [s] for s in (next(results, None) for _ in range(size))])
        assert 0 <= p.tasks[i].current_us <= before  # a batch never makes the best time worse
        assert p.tasks[i].current_us <= p.tasks[i].untuned_us
    left = budget - sum(t.trials for t in p.tasks)
    assert all(t.trials >= per_task_max or min(batch, per_task_max - t.trials) > left for t in p.tasks)


@settings(max_examples=200, deadline=None)
@given(times=st.lists(st.floats(1.0, 1e6), min_size=1, max_size=6),
       outside=st.lists(st.integers(0, 3), max_size=6),
       budget=st.integers(1, 40), per_task_max=st.integers(1, 12), batch=st.integers(1, 8))
def test_sibling_trials_count_in_the_budget_but_not_in_metaschedules_limit(times, outside, budget, per_task_max,
                                                                          batch):
    """A round's sibling and relative trials are measured before MetaSchedule's tune, which
    does not count them against a task's limit: it measures a whole batch where hotdb's
    count leaves less (the MLP's relative in CI: 7 trials of a round of 6). The picks still
    never take the round past its budget."""
    p = Policy([TaskState(f"t{i}", us, 1) for i, us in enumerate(times)], per_task_max=per_task_max,
               budget=budget, batch=batch, clock=Clock())
    for i, n in enumerate(outside[:len(times)]):
        for _ in range(min(n, per_task_max, budget - sum(t.trials for t in p.tasks))):
            p.joined(i, [[1e-4]], outside=True)
    counted = {i: t.trials - t.outside for i, t in enumerate(p.tasks)}  # MetaSchedule's own count
    while (i := p.pick()) != -1:
        size = min(batch, per_task_max - counted[i])
        assert sum(t.trials for t in p.tasks) + size <= budget
        p.joined(i, [[1e-4]] * size)
        counted[i] += size
    assert sum(t.trials for t in p.tasks) <= budget


def test_a_converging_task_yields_to_a_smaller_one_still_improving():
    """Batches in a row that take less than STALE_GAIN away halve what a task expects,
    from the second: ResNet-18's largest task, stuck at its time for rounds, took a sixth
    of a tune's trials by its size alone."""
    big, small = TaskState("big", 14_000.0, 2, batches=6), TaskState("small", 8_000.0, 1, batches=6)
    p = Policy([big, small], per_task_max=1000, budget=1000, clock=Clock())
    assert p.pick() == 0  # by size: 14,000 x 1/14 beats 8,000 x 1/14
    p.joined(0, [[6.99e-3]])  # 13,980 us: 0.1 % gained, a stall
    assert big.stale == 1 and p.pick() == 0  # one stall is not convergence: 1/16 of 13,980 still beats 1/14 of 8,000
    p.joined(0, [[6.95e-3]])  # 0.6 %: a second batch in a row that found nothing
    assert big.stale == 2
    assert big.expected_gain_us == 13_900.0 * 0.5 / 9 / 2 < small.expected_gain_us
    assert p.pick() == 1
    p.joined(1, [[7.0e-3]])  # the small one improves 12.5 %: it keeps its floor
    assert small.stale == 0
    p.joined(0, [[6.0e-3]])  # a faster schedule found at last: the floor comes back
    assert big.stale == 0 and big.expected_gain_us == 12_000.0 * max(big.last_gain, 0.5 / 10)


@given(st.lists(st.floats(0.5, 1.2), min_size=1, max_size=12))
def test_stale_counts_the_batches_in_a_row_that_found_nothing(ratios):
    """Whatever the batches measure, `stale` is the length of the last run of batches
    that took less than STALE_GAIN of the task's time away."""
    p = policy([1000.0])
    best = 1000.0
    expected = 0
    for ratio in ratios:
        before = min(best, 1000.0)
        best = min(best, before * ratio)
        p.joined(0, [[before * ratio * 1e-6]])
        expected = 0 if (before - best) / before >= STALE_GAIN else expected + 1
        assert p.tasks[0].stale == expected


def test_a_task_s_history_passes_from_round_to_round(tmp_path):
    """The tuner process of a round reports each task's batches and stale batches as it
    joins them; the next round's job starts each task's TaskState from them
    (hotdb/ops/tune.py keeps them between rounds)."""
    from hotdb.capture.tune import driver

    plan = driver.TunePlan(["conv", "dense"], [70.0, 30.0], 32, 32, untuned_us=[900.0, 300.0])
    run = driver._TunerRun(None, plan, 8, driver._FailureWatch(tmp_path, None), None)
    for batches, stale in ((1, 0), (2, 1), (3, 2)):
        run._event({"event": "joined", "task": 0, "name": "conv", "trials": 8 * batches, "valid": 8 * batches,
                    "batches": batches, "stale": stale, "best_us": 100.0, "current_us": 100.0, "total_trials": 8})
    assert (run.batches, run.stale) == ({"conv": 3}, {"conv": 2})
    plan.batches_before = [run.batches.get(n, 0) for n in plan.task_names]
    plan.stale_before = [run.stale.get(n, 0) for n in plan.task_names]
    tasks = driver._job(plan, tmp_path, None)["tasks"]
    assert [(t["name"], t["batches"], t["stale"]) for t in tasks] == [("conv", 3, 2), ("dense", 0, 0)]
