"""How many trials a round of `hotdb tune` gets (hotdb/ops/tune.py: round_trials): the
first a quarter of the budget; later rounds enough to keep re-profiling a tenth of the round; never fewer than
two a task, never past what is left."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from hotdb.ops.tune import FIRST_ROUND_SHARE, PROFILE_SHARE, TASK_TRIALS_MIN, round_trials


def test_a_first_round_is_a_quarter_of_the_budget():
    """ResNet-18 at 64 trials a task: B = 1,216 over a cut of 13 tasks, a first round of
    304, whether it starts a new cost model or not (a new one's warm-up no longer ends the
    round: the tuner switches to the ranked search within it)."""
    assert round_trials(1216, 13, trial_s=None, profile_s=None, budget=1216) == 304
    assert round_trials(32, 3, trial_s=None, profile_s=None, budget=32) == 8
    assert round_trials(32, 5, trial_s=None, profile_s=None, budget=32) == 10  # two a task at least


@given(budget=st.integers(1, 20_000), tasks=st.integers(1, 200), spent=st.floats(0.0, 1.0))
def test_a_first_round(budget, tasks, spent):
    remaining = max(0, budget - int(budget * spent))
    size = round_trials(remaining, tasks, trial_s=None, profile_s=None, budget=budget)
    assert size <= remaining
    assert size == min(remaining, max(TASK_TRIALS_MIN * tasks, math.ceil(budget * FIRST_ROUND_SHARE)))


@given(trial_s=st.floats(0.01, 60.0), profile_s=st.floats(0.1, 600.0), tasks=st.integers(1, 50))
def test_a_later_round_keeps_reprofiling_a_tenth_of_it(trial_s, profile_s, tasks):
    """Once a trial and a profile are timed the round is sized by them."""
    size = round_trials(10**9, tasks, trial_s=trial_s, profile_s=profile_s, budget=10**9)
    assert size >= TASK_TRIALS_MIN * tasks
    if size > TASK_TRIALS_MIN * tasks:  # sized by the profile: re-profiling at most a tenth, by a trial
        assert profile_s / (profile_s + size * trial_s) <= PROFILE_SHARE + 1e-9
        assert profile_s / (profile_s + (size - 1) * trial_s) > PROFILE_SHARE - 1e-9
