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


def test_a_round_the_cost_model_will_predict_in_gets_full_batches(ms):
    model, _ = _cost_model(None, ms)
    strategy = _search(model, 304, ms)
    assert strategy == "evolutionary"  # 304 trials pass the model's warm-up (100): the full search
    assert _batch(job(304), strategy) == FULL_SEARCH_BATCH == 64
    assert _batch(job(304, per_task_max=20), strategy) == 20  # never past the limit a task
    assert _batch(job(40, batch=2), "evolutionary") == 40  # nor past the job's trials


def test_a_small_search_or_a_deadline_keeps_the_drivers_batch(ms):
    model, _ = _cost_model(None, ms)
    small = _search(model, 32, ms)
    assert not isinstance(small, str)  # 32 trials of a new model: scores at random, the small search
    assert _batch(job(32, batch=2), small) == 2
    full = _search(model, 304, ms)
    assert _batch(job(304, batch=2, seconds=600.0), full) == 2  # under --budget a stop loses the batch in flight
