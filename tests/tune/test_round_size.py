"""How many trials a round of `hotdb tune` gets (hotdb/ops/tune.py: round_trials): the
first a quarter of the budget, no more than a new cost model's warm-up when it starts
one; later rounds enough to keep re-profiling a tenth of the round; never fewer than
two a task, never past what is left."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from hotdb.ops.tune import COLD_FIRST_ROUND, FIRST_ROUND_SHARE, PROFILE_SHARE, TASK_TRIALS_MIN, round_trials


def test_a_cold_first_round_ends_once_a_new_cost_model_ranks():
    """ResNet-18 at 64 trials a task: B = 1,216 over a cut of 13 tasks. Without a saved
    cost model the first round is 128 trials (XGBoost ranks after 100), with one a
    quarter of the budget; a small budget's quarter is under the cap either way."""
    assert round_trials(1216, 13, trial_s=None, profile_s=None, budget=1216, cold=True) == COLD_FIRST_ROUND == 128
    assert round_trials(1216, 13, trial_s=None, profile_s=None, budget=1216, cold=False) == 304
    assert round_trials(32, 3, trial_s=None, profile_s=None, budget=32, cold=True) == 8


@given(budget=st.integers(1, 20_000), tasks=st.integers(1, 200), cold=st.booleans(),
       spent=st.floats(0.0, 1.0))
def test_a_first_round(budget, tasks, cold, spent):
    remaining = max(0, budget - int(budget * spent))
    size = round_trials(remaining, tasks, trial_s=None, profile_s=None, budget=budget, cold=cold)
    quarter = math.ceil(budget * FIRST_ROUND_SHARE)
    wanted = min(quarter, COLD_FIRST_ROUND) if cold else quarter
    assert size <= remaining
    assert size == min(remaining, max(TASK_TRIALS_MIN * tasks, wanted))


@given(trial_s=st.floats(0.01, 60.0), profile_s=st.floats(0.1, 600.0), tasks=st.integers(1, 50),
       cold=st.booleans())
def test_a_later_round_keeps_reprofiling_a_tenth_of_it(trial_s, profile_s, tasks, cold):
    """Once a trial and a profile are timed the round is sized by them, cold or not."""
    size = round_trials(10**9, tasks, trial_s=trial_s, profile_s=profile_s, budget=10**9, cold=cold)
    assert size >= TASK_TRIALS_MIN * tasks
    if size > TASK_TRIALS_MIN * tasks:  # sized by the profile: re-profiling at most a tenth, by a trial
        assert profile_s / (profile_s + size * trial_s) <= PROFILE_SHARE + 1e-9
        assert profile_s / (profile_s + (size - 1) * trial_s) > PROFILE_SHARE - 1e-9
