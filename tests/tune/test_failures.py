"""What hotdb says of failed trials, read from a per-task log MetaSchedule wrote
(tests/data/ms-tuning-log/made/, SOURCES.md says how it was made): each failure's kind
as it happens, and the first failure's own words on one line, without the candidate's
module and trace that MetaSchedule prints after them."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import DATA

from hotdb.capture.tune.driver import TuneOutcome, TunePlan, _FailureWatch
from hotdb.ops.tune import _failed

LOG = DATA / "ms-tuning-log" / "made" / \
    "tvm.s_tir.meta_schedule.logging.task_0_fused_matmul_add_relu.log"
CAUSE = ("LocalBuilder: An exception occurred; Type `ffi.Function` does not support ToJSONGraph "
         "(no native creator or __ffi_new__ type attr)")


def watched(tmp_path: Path) -> tuple[_FailureWatch, list[str]]:
    logs = tmp_path / "logs"
    logs.mkdir()
    said: list[str] = []
    watch = _FailureWatch(logs, said.append)  # the log appears after the watch began, as in a tune
    shutil.copy(LOG, logs / LOG.name)
    watch.close()
    return watch, said


def test_each_failed_trial_is_said_by_its_kind(tmp_path):
    watch, said = watched(tmp_path)
    assert said == [f"fused_matmul_add_relu trial {n}: error in building: LocalBuilder: An exception occurred"
                    for n in (1, 2)]
    assert watch.failures == {"error in building: LocalBuilder: An exception occurred": 2}


def test_the_first_failure_is_its_own_words_on_one_line(tmp_path):
    watch, _ = watched(tmp_path)
    assert watch.first == CAUSE
    outcome = TuneOutcome(True, 2, 0, watch.failures, watch.first)
    error = str(_failed(outcome, TunePlan(["fused_matmul_add_relu"], [79.2], 2, 2), tmp_path))
    assert "\n" not in error and "class Module" not in error and "sch.get_sblock" not in error
    assert error.startswith("no trial of 2 succeeded, so nothing was tuned: 2 x error in building: ")
    assert f"First failure: {CAUSE} (with its schedule in {tmp_path / 'logs'})" in error
