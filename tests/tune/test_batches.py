"""How many trials a batch the tuner measures, and how large its search is
(hotdb/capture/tune/process.py: _batch, _search): a few trials a task and a small search
while the cost model predicts at random; once it ranks, 8 trials a batch at least and a
population of 8 candidates a trial, MetaSchedule's full search only at its batch of 64;
small batches under a deadline; a ranked batch keeps MetaSchedule's share of random
samples. The search and the cost model are MetaSchedule's own."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotdb.capture.tune.process import (
    EXPLORE_SHARE,
    POPULATION_A_TRIAL,
    RANDOM_MODEL_SEARCH,
    RANKED_BATCH_MIN,
    _batch,
    _cost_model,
    _eps_greedy,
    _search,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ms():
    from tvm.s_tir import meta_schedule

    return meta_schedule


def job(trials: int, batch: int = 2, per_task_max: int | None = None, seconds: float | None = None) -> dict:
    return {"trials": trials, "batch": batch, "per_task_max": per_task_max or trials, "seconds": seconds}


def test_a_round_whose_cost_model_ranks_searches_in_proportion_to_its_batch(ms):
    """A round of 256 trials over 13 tasks gets the driver's batches of 9, each searched
    by a population of 72 evolved MetaSchedule's 4 times; 64 trials a batch search as
    MetaSchedule does."""
    trained = ms.cost_model.XGBModel(num_warmup_samples=0, num_tuning_cores=1)  # its warm-up seen
    assert _batch(job(256, batch=9), trained) == 9
    assert _batch(job(304, batch=2), trained) == RANKED_BATCH_MIN == 8  # a batch outweighs the search's fixed part
    assert _batch(job(304, batch=2, per_task_max=5), trained) == 5  # never past the limit a task
    assert _batch(job(6, batch=2), trained) == 6  # nor past the job's trials
    search = _search(trained, 9, ms)
    assert search.population_size == POPULATION_A_TRIAL * 9 == 72 and search.genetic_num_iters == 4
    assert _search(trained, 2, ms).population_size == RANDOM_MODEL_SEARCH["population_size"]
    assert _search(trained, 64, ms) == "evolutionary"  # MetaSchedule's own: 512 at 64


def test_a_cold_round_searches_small_in_the_drivers_batches(ms):
    """A new model predicts at random for its first 100 trials: a round that starts so
    searches small, however many trials it has (the first of a 1,216-trial tune: 304),
    in batches of a few trials a task, so that its batches reach every task."""
    model, _ = _cost_model(None, ms)
    for trials in (32, 304):
        assert _batch(job(trials, batch=2), model) == 2
        small = _search(model, 2, ms)
        assert small.population_size == RANDOM_MODEL_SEARCH["population_size"] and small.genetic_num_iters == 1
    trained = ms.cost_model.XGBModel(num_warmup_samples=0, num_tuning_cores=1)
    assert _batch(job(304, batch=2, seconds=600.0), trained) == 2  # under --budget a stop loses the batch in flight


def random_picks(batch: int, eps_greedy: float) -> int:
    """The random samples MetaSchedule measures in a batch (evolutionary_search.cc,
    PickWithEpsGreedy: `int num_rands = num * self->eps_greedy`)."""
    return int(batch * eps_greedy)


@given(st.integers(RANKED_BATCH_MIN, 511))
def test_a_ranked_batch_measures_random_samples_as_metaschedules_batch_of_64_does(batch):
    """MetaSchedule's 5 % gives its batch of 64 three random samples and a batch under 20
    none; a ranked batch of hotdb's gets its share, rounded, and one at least."""
    assert random_picks(64, 0.05) == 3 and random_picks(16, 0.05) == 0  # why: the default at hotdb's batches
    assert random_picks(batch, _eps_greedy(batch)) == max(1, round(EXPLORE_SHARE * batch))
    assert random_picks(batch, _eps_greedy(batch)) < batch / 4  # the model still picks the batch


def test_the_search_a_ranked_round_runs_explores(ms):
    """The strategy MetaSchedule is given carries the share: a batch of 8 measures one
    random sample; under a deadline's pairs the model picks both."""
    trained = ms.cost_model.XGBModel(num_warmup_samples=0, num_tuning_cores=1)
    assert random_picks(8, _search(trained, 8, ms).eps_greedy) == 1
    assert random_picks(24, _search(trained, 24, ms).eps_greedy) == 1
    assert random_picks(2, _search(trained, 2, ms).eps_greedy) == 0
