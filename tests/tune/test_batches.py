"""How many trials a batch the tuner measures (hotdb/capture/tune/process.py: _batch): a
few a task while the cost model predicts at random and the search is small, MetaSchedule's
64 once the full search runs (it costs the same whatever the batch), small again under a
deadline. The search and the cost model are MetaSchedule's own."""

from __future__ import annotations

import pytest

from hotdb.capture.tune.process import FULL_SEARCH_BATCH, _batch, _cost_model, _search

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ms():
    from tvm.s_tir import meta_schedule

    return meta_schedule


def job(trials: int, batch: int = 2, per_task_max: int | None = None, seconds: float | None = None) -> dict:
    return {"trials": trials, "batch": batch, "per_task_max": per_task_max or trials, "seconds": seconds}


def test_a_round_whose_cost_model_predicts_gets_full_batches(ms):
    trained = ms.cost_model.XGBModel(num_warmup_samples=0, num_tuning_cores=1)  # its warm-up seen
    strategy = _search(trained, ms)
    assert strategy == "evolutionary"
    assert _batch(job(304), strategy) == FULL_SEARCH_BATCH == 64
    assert _batch(job(304, per_task_max=20), strategy) == 20  # never past the limit a task
    assert _batch(job(40, batch=2), "evolutionary") == 40  # nor past the job's trials


def test_a_cold_round_searches_small_in_the_drivers_batches(ms):
    """A new model predicts at random for its first 100 trials: a round that starts so
    searches small, however many trials it has (the first of a 1,216-trial tune: 304),
    in batches of a few trials a task, so that its batches reach every task."""
    model, _ = _cost_model(None, ms)
    for trials in (32, 304):
        small = _search(model, ms)
        assert not isinstance(small, str)
        assert _batch(job(trials, batch=8), small) == 8
    full = _search(ms.cost_model.XGBModel(num_warmup_samples=0, num_tuning_cores=1), ms)
    assert _batch(job(304, batch=2, seconds=600.0), full) == 2  # under --budget a stop loses the batch in flight
