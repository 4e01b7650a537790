"""Sibling trials (hotdb/capture/tune/siblings.py): a task measures the best schedule of a
task with the same anchor block, applied to its own blocks, as a trial of its own. On a
ResNet basic block (tests/data/models/residual_block.py: two convolutions of one shape,
one fused with the residual add), with MetaSchedule's real search, builder and runner.
Relative trials, the same blocks on other shapes with the tiles fitted: on two stages of
a ResNet-like network (tests/data/models/two_stages.py)."""

from __future__ import annotations

import math

import pytest
from helpers import ROOT

from hotdb.capture.tune.driver import _scheduled
from hotdb.capture.tune.process import _sibling_trials, _transfers, _within
from hotdb.capture.tune.scheduler import Policy, TaskState
from hotdb.capture.tune.siblings import FAILED_RUN_S, RELATIVE_MARGIN, Transfers, measure

pytestmark = pytest.mark.slow

MODEL = f"{ROOT}/tests/data/models/residual_block.py:residual_block"
PLAIN, RESIDUAL = "fused_conv2d_add_relu", "fused_conv2d_add_add1_relu"


@pytest.fixture(scope="module", autouse=True)
def metaschedule_logger():
    """MetaSchedule's logger as it was before this module's tunes. A tune configures it
    not to propagate, and afterwards it held pytest's capture handlers, which have no
    name: the next tune in this process lists its handlers by name and failed on None
    (the docs' example in tests/tune/test_tune.py). The tuner process drops them between
    jobs (capture/tune/process.py)."""
    import logging

    logger = logging.getLogger("tvm.s_tir.meta_schedule")
    before = list(logger.handlers), logger.propagate, logger.level
    yield
    for handler in [h for h in logger.handlers if h not in before[0]]:
        logger.removeHandler(handler)
        handler.close()
    logger.propagate, logger.level = before[1], before[2]


@pytest.fixture(scope="module")
def block(tmp_path_factory):
    """The block's tasks, and a work database where the plain convolution was tuned for
    4 trials by MetaSchedule and the residual one not at all."""
    return first_tuned(tmp_path_factory.mktemp("siblings"), MODEL, PLAIN, RESIDUAL)


def first_tuned(work, model: str, first: str, second: str) -> dict:
    """`model`'s two tasks, `first` and `second`, and a work database in `work` where
    `first` was tuned for 4 trials by MetaSchedule and `second` not at all."""
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.models import load_model
    from hotdb.capture.profile import fuse
    from hotdb.capture.targets import parse_target

    _drop_unnamed_handlers()
    target = parse_target("llvm")
    extracted = {t.task_name: t for t in ms.relax_integration.extract_tasks(fuse(load_model(model).mod, target), target)}
    assert set(extracted) == {first, second}
    contexts, _ = ms.relax_integration.extracted_tasks_to_tune_contexts(
        [extracted[first], extracted[second]], str(work),
        strategy=ms.search_strategy.EvolutionarySearch(population_size=16, genetic_num_iters=1), num_threads=1)
    database = ms.database.JSONDatabase(work_dir=str(work))
    ms.tune_tasks(tasks=contexts[:1], task_weights=[1.0], work_dir=str(work), max_trials_global=4,
                  num_trials_per_iter=4, database=database, builder=ms.builder.LocalBuilder(max_workers=1),
                  runner=ms.runner.LocalRunner())
    return {"ms": ms, "work": work, "target": target, "extracted": extracted, "contexts": contexts,
            "names": {n: t.dispatched[0] for n, t in extracted.items()}}


def best_s(database, mod) -> float:
    top = database.get_top_k(database.commit_workload(mod), 1)
    return sum(float(s) for s in top[0].run_secs) / len(top[0].run_secs) if top else float("inf")


def test_a_task_measures_its_siblings_best_schedule_once(block):
    """The residual convolution, untuned, gets the plain one's best record applied to its
    own blocks; measured, it is a record of its own (its time, or MetaSchedule's failure
    mark) and a sample of the cost model; asked again, nothing more: it is measured."""
    ms, target, (plain, residual) = block["ms"], block["target"], block["contexts"]
    database = ms.database.JSONDatabase(work_dir=str(block["work"]))
    found = Transfers(database, [plain, residual], target, block["names"]).at_start()
    assert [(t.task_id, t.sibling) for t in found] == [(1, PLAIN)]
    assert found[0].sibling_us == pytest.approx(best_s(database, plain.mod) * 1e6)
    cost_model = ms.cost_model.XGBModel(num_tuning_cores=1)
    times = measure(found, [plain, residual], ms.builder.LocalBuilder(max_workers=1), ms.runner.LocalRunner(),
                    database, cost_model, target)
    records = database.get_all_tuning_records()
    mine = [r for r in records if r.workload.same_as(database.commit_workload(residual.mod))]
    assert len(mine) == 1 and len(records) == 5
    assert times[0] is not None and [float(s) for s in mine[0].run_secs] == pytest.approx(times[0])
    assert cost_model.data_size == 1
    again = ms.database.JSONDatabase(work_dir=str(block["work"]))  # as the next round reads it
    assert [t for t in Transfers(again, [plain, residual], target, block["names"]).at_start() if t.task_id == 1] == []


def test_the_faster_sibling_gives_and_never_takes(block):
    """Whichever of the two holds the faster record gives it; the other takes it only where
    that is faster than its own best."""
    ms, target, (plain, residual) = block["ms"], block["target"], block["contexts"]
    database = ms.database.JSONDatabase(work_dir=str(block["work"]))
    own = {0: best_s(database, plain.mod), 1: best_s(database, residual.mod)}
    found = Transfers(database, [plain, residual], target, block["names"]).at_start()
    for trial in found:
        assert trial.sibling_us / 1e6 < own[trial.task_id]
        assert trial.sibling == (PLAIN, RESIDUAL)[1 - trial.task_id]
    assert min(own, key=own.get) not in [t.task_id for t in found]


def test_a_round_starts_its_search_from_a_sibling_trial(block):
    """MetaSchedule's evolutionary search replays the task's best records as its starting
    population (it stops the tune on one it cannot replay): a round of the residual task
    after its sibling trial runs to its end, and MetaSchedule's Relax build applies the
    records to both tasks."""
    import tvm
    from tvm import relax

    from hotdb.capture.models import load_model
    from hotdb.capture.profile import fuse

    ms, target, (_, residual) = block["ms"], block["target"], block["contexts"]
    database = ms.database.JSONDatabase(work_dir=str(block["work"]))
    assert database.get_top_k(database.commit_workload(residual.mod), 1)  # the sibling trial's record
    ms.tune_tasks(tasks=[residual], task_weights=[1.0], work_dir=str(block["work"]), max_trials_global=2,
                  num_trials_per_iter=2, database=database, builder=ms.builder.LocalBuilder(max_workers=1),
                  runner=ms.runner.LocalRunner())
    mine = [r for r in database.get_all_tuning_records() if r.workload.same_as(database.commit_workload(residual.mod))]
    assert len(mine) == 3
    with target, database, tvm.transform.PassContext(opt_level=3):
        applied = relax.transform.MetaScheduleApplyDatabase()(fuse(load_model(MODEL).mod, target))
    scheduled = [gv.name_hint for gv, f in applied.functions.items() if _scheduled(f)]
    assert set(scheduled) >= {PLAIN, RESIDUAL}


def plain_only(block, path):
    """A work database holding the plain task's records only: the residual one has a
    sibling trial to make."""
    ms, target, (plain, _) = block["ms"], block["target"], block["contexts"]
    database = ms.database.JSONDatabase(work_dir=str(block["work"]))
    fresh = ms.database.JSONDatabase(work_dir=str(path))
    for record in database.get_all_tuning_records():
        if record.workload.same_as(database.commit_workload(plain.mod)):
            fresh.commit_tuning_record(ms.database.TuningRecord(
                record.trace, fresh.commit_workload(plain.mod), record.run_secs, target, record.args_info))
    return fresh


def test_a_failed_sibling_trial_is_a_failed_record(block, tmp_path):
    """A trial whose build fails leaves MetaSchedule's failure mark, as its own callbacks
    do, and no sample in the cost model."""
    from hotdb.capture.tune.builder import kept_builder

    ms, target, (plain, residual) = block["ms"], block["target"], block["contexts"]
    database = plain_only(block, tmp_path)
    trials = Transfers(database, [plain, residual], target, block["names"]).at_start()
    assert [t.task_id for t in trials] == [1]
    builder = kept_builder(1, 60.0, "llvm", cc=str(tmp_path / "no-such-compiler"))
    try:
        cost_model = ms.cost_model.XGBModel(num_tuning_cores=1)
        times = measure(trials, [plain, residual], builder, ms.runner.LocalRunner(), database, cost_model, target)
    finally:
        builder.close()
    assert times == [None] and cost_model.data_size == 0
    mine = [r for r in database.get_all_tuning_records() if r.workload.same_as(database.commit_workload(residual.mod))]
    assert len(mine) == 1 and [float(s) for s in mine[0].run_secs] == [FAILED_RUN_S]


def test_no_sibling_trials_under_a_deadline_nor_past_a_tasks_limit(block, tmp_path):
    """Measured before the round's first batch, they are left out where a deadline holds
    the round, and for a task at its trial limit."""
    target, contexts, extracted = block["target"], block["contexts"], block["extracted"]
    database = plain_only(block, tmp_path)

    def policy(trials: int) -> Policy:
        return Policy([TaskState(PLAIN, 1.0, 1), TaskState(RESIDUAL, 1.0, 1, trials=trials)], per_task_max=8, budget=8)

    job = {"trials": 8, "seconds": None}
    transfers = _transfers(job, database, contexts, target, extracted)
    assert [t.task_id for t in _sibling_trials(job, transfers, policy(0))] == [1]
    assert _sibling_trials(job, _transfers(job, database, contexts, target, extracted), policy(8)) == []
    assert _transfers({**job, "seconds": 60.0}, database, contexts, target, extracted) is None
    assert _sibling_trials(job, None, policy(0)) == []


def test_transfers_stay_within_a_tasks_limit_the_rounds_trials_and_half_of_them():
    """A round's sibling and relative trials, at its start or within it: none past a
    task's trial limit (counting those kept beside it), the trials the round has left, or
    half the round's trials measured outside MetaSchedule's batches."""
    from types import SimpleNamespace

    def policy(trials: list[int], outside: int = 0) -> Policy:
        tasks = [TaskState(f"t{i}", 1.0, 1, trials=n) for i, n in enumerate(trials)]
        tasks[0].outside = outside
        return Policy(tasks, per_task_max=4, budget=12)

    offered = [SimpleNamespace(task_id=i) for i in (0, 1, 1, 2, 2)]
    assert [t.task_id for t in _within(offered, policy([3, 2, 0]), most=6)] == [0, 1, 1, 2, 2]
    assert [t.task_id for t in _within(offered, policy([4, 3, 0]), most=6)] == [1, 2, 2]  # the limit of 4
    assert [t.task_id for t in _within(offered, policy([4, 4, 2]), most=6)] == [2, 2]
    assert [t.task_id for t in _within(offered, policy([0, 0, 9]), most=6)] == [0, 1, 1]  # 12 trials in all
    assert [t.task_id for t in _within(offered, policy([2, 0, 0], outside=2), most=6)] == [0, 1, 1, 2]  # half of 12
    assert _within(offered, policy([2, 0, 0], outside=6), most=6) == []


def test_hotdb_tune_says_a_sibling_trial_and_counts_it(tmp_path):
    """Two rounds of `hotdb tune` on the block: the first task's first batch gives the
    other, untried, a trial of its best at once, within round 1; each sibling trial is said
    as it lands and counted in its round's trials and the tune's records."""
    import json
    import os
    import re
    import subprocess
    import sys

    work = tmp_path / "work"
    proc = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(tmp_path / "hotdb.duckdb"), "tune", MODEL,
                           "--coverage", "100", "--trials", "12", "--rounds", "2", "--work-dir", str(work), "-f", "json",
                           "--build-timeout", "900", "--run-timeout", "300"],
                          capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "HOTDB_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    first = re.split(r"^round 1: .*$", proc.stderr, flags=re.M)[0]
    lines = [line for line in first.splitlines() if re.match(r"^(\d+/\d+ trials|sibling trial)  ", line)]
    said = re.match(r"^sibling trial  (\S+): the best schedule of (\S+), which has the same main block "
                    r"\(([\d.]+) ms a call there\): ([\d.]+) ms a call$", lines[1])
    assert re.match(r"^\d+/\d+ trials  (\S+): \d of \d measured", lines[0])[1] == said[2], first
    assert {said[1], said[2]} == {PLAIN, RESIDUAL} and said[1] not in lines[0]  # before its own first batch
    rounds = re.findall(r"^round (\d): 2 tasks tried, (\d+) of (\d+) trials measured", proc.stderr, re.M)
    records = (work / "database_tuning_record.json").read_text().splitlines()
    assert len(rounds) == 2 and sum(int(total) for _, _, total in rounds) == len(records)
    assert json.loads(proc.stdout)  # the comparison of the tune's last run with its baseline


# -- relative trials: the same blocks on other shapes, the tiles fitted -----------------------

STAGES = f"{ROOT}/tests/data/models/two_stages.py"
FIRST, SECOND = "fused_conv2d_add_relu", "fused_conv2d1_add1_relu1"  # 16 channels on 28x28; 32 on 14x14


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    """The two stages' tasks, and a work database where the first was tuned for 4 trials
    by MetaSchedule and the second not at all."""
    return first_tuned(tmp_path_factory.mktemp("relatives"), f"{STAGES}:two_stages", FIRST, SECOND)


def _drop_unnamed_handlers() -> None:
    """An earlier tune in this process may have left pytest's capture handlers on
    MetaSchedule's logger (metaschedule_logger above); the next tune lists its handlers by
    name."""
    import logging

    logger = logging.getLogger("tvm.s_tir.meta_schedule")
    for handler in [h for h in logger.handlers if h.name is None]:
        logger.removeHandler(handler)


def gflops(database, mod) -> float:
    from tvm import s_tir

    return s_tir.analysis.estimate_tir_flops(mod) / best_s(database, mod) / 1e9


def tile_decisions(mod, trace) -> list[tuple[int, list[int]]]:
    """Each tile size decision of `trace` replayed on `mod`: (the loop's extent, its factors)."""
    from tvm import s_tir

    schedule, seen = s_tir.Schedule(mod), []

    def record(instruction, inputs, attrs, decision):
        if instruction.kind.name == "SamplePerfectTile":
            seen.append((int(schedule.get(inputs[0]).extent), [int(f) for f in decision]))
        return decision

    trace.apply_to_schedule(schedule, remove_postproc=True, decision_provider=record)
    return seen


def test_a_task_measures_its_relatives_best_schedule_with_its_tiles_fitted(stages):
    """The second stage, untuned, gets the first's best record replayed on its own loops,
    each tile size fitted to them; measured, it is a record of the second stage and a
    sample of the cost model; asked again, nothing more."""
    from tvm import s_tir

    ms, target, (first, second) = stages["ms"], stages["target"], stages["contexts"]
    database = ms.database.JSONDatabase(work_dir=str(stages["work"]))
    found = Transfers(database, [first, second], target, stages["names"]).at_start()
    assert [(t.task_id, t.sibling, t.relative) for t in found] == [(1, FIRST, True)]
    trial = found[0]
    assert trial.sibling_gflops == pytest.approx(gflops(database, first.mod))
    assert trial.own_gflops is None and trial.flop == s_tir.analysis.estimate_tir_flops(second.mod)
    fitted = tile_decisions(second.mod, trial.schedule.trace)
    assert fitted and all(math.prod(factors) == extent for extent, factors in fitted)
    donor = database.get_top_k(database.commit_workload(first.mod), 1)[0].trace
    assert len(fitted) == len(tile_decisions(first.mod, donor))
    cost_model = ms.cost_model.XGBModel(num_tuning_cores=1)
    times = measure(found, [first, second], ms.builder.LocalBuilder(max_workers=1), ms.runner.LocalRunner(),
                    database, cost_model, target)
    mine = [r for r in database.get_all_tuning_records() if r.workload.same_as(database.commit_workload(second.mod))]
    assert len(mine) == 1 and times[0] is not None and [float(s) for s in mine[0].run_secs] == pytest.approx(times[0])
    assert cost_model.data_size == 1
    again = ms.database.JSONDatabase(work_dir=str(stages["work"]))
    assert [t for t in Transfers(again, [first, second], target, stages["names"]).at_start() if t.relative
            and t.sibling == FIRST and t.task_id == 1 and t.sibling_gflops == pytest.approx(trial.sibling_gflops)] == []


def test_a_best_found_within_a_round_is_given_to_its_relatives_at_once(stages, tmp_path):
    """A round that starts with nothing measured has no transfers to make; once a batch
    of the first stage lands (its records committed, as MetaSchedule's join does), the
    second stage gets the first's best with its tiles fitted, then nothing more until a
    new best; the second stage's own records give nothing back while slower by FLOP/s."""
    ms, target, (first, second) = stages["ms"], stages["target"], stages["contexts"]
    tuned = ms.database.JSONDatabase(work_dir=str(stages["work"]))
    database = ms.database.JSONDatabase(work_dir=str(tmp_path))
    transfers = Transfers(database, [first, second], target, stages["names"])
    assert transfers.at_start() == [] and transfers.after(0) == [] and transfers.after(1) == []
    workload = database.commit_workload(first.mod)
    for record in tuned.get_all_tuning_records():
        database.commit_tuning_record(ms.database.TuningRecord(record.trace, workload, record.run_secs, target,
                                                               record.args_info))
    found = transfers.after(0)
    assert [(t.task_id, t.sibling, t.relative, t.own_gflops) for t in found] == [(1, FIRST, True, None)]
    assert found[0].sibling_gflops == pytest.approx(gflops(database, first.mod))
    fitted = tile_decisions(second.mod, found[0].schedule.trace)
    assert fitted and all(math.prod(factors) == extent for extent, factors in fitted)
    assert transfers.after(0) == []  # the same best: offered once
    measure(found, [first, second], ms.builder.LocalBuilder(max_workers=1), ms.runner.LocalRunner(), database,
            ms.cost_model.XGBModel(num_tuning_cores=1), target)
    back = transfers.after(1)
    assert all(t.task_id == 0 and t.sibling_gflops > RELATIVE_MARGIN * t.own_gflops for t in back)
    assert bool(back) == (gflops(database, second.mod) > RELATIVE_MARGIN * gflops(database, first.mod))


def test_a_relative_gives_only_at_a_quarter_more_flops(stages):
    """Shapes differ, so FLOP/s compare, not times: a relative trial comes from a task whose
    best runs at RELATIVE_MARGIN times the taker's best FLOP/s or more; the faster of the
    two by FLOP/s never takes."""
    ms, target, (first, second) = stages["ms"], stages["target"], stages["contexts"]
    database = ms.database.JSONDatabase(work_dir=str(stages["work"]))
    rates = {0: gflops(database, first.mod), 1: gflops(database, second.mod)}
    for trial in [t for t in Transfers(database, [first, second], target, stages["names"]).at_start() if t.relative]:
        assert trial.own_gflops == pytest.approx(rates[trial.task_id])
        assert trial.sibling_gflops > RELATIVE_MARGIN * rates[trial.task_id]
        assert trial.task_id != max(rates, key=rates.get)


def test_hotdb_tune_says_a_relative_trial_and_counts_it(tmp_path):
    """The first stage tuned alone leaves its records in hotdb; a tune of both stages is
    seeded with them, and its round starts with the second stage measuring the first's
    best with its tiles fitted, said as it lands and counted in the round's trials."""
    import os
    import re
    import subprocess
    import sys

    def tune(model: str, work: str) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "hotdb", "--db", str(tmp_path / "hotdb.duckdb"), "tune",
                               f"{STAGES}:{model}", "--coverage", "100", "--trials", "4", "--rounds", "1",
                               "--work-dir", str(tmp_path / work), "--build-timeout", "900", "--run-timeout", "300"],
                              capture_output=True, text=True, timeout=1800,
                              env={**os.environ, "HOTDB_CACHE_DIR": str(tmp_path / "cache")})
        assert proc.returncode == 0, proc.stderr
        return proc

    assert "relative trial" not in tune("first_stage", "first").stderr
    said = tune("two_stages", "both").stderr
    found = re.findall(rf"^relative trial  {SECOND}: the best schedule of {FIRST}, the same blocks on other shapes "
                       r"\(([\d.]+) GFLOP/s there, none here yet\), its tiles fitted: ([\d.]+) ms a call "
                       r"\(([\d.]+) GFLOP/s\)$", said, re.M)
    assert len(found) == 1 and float(found[0][0]) > 0, said
    rounds = re.findall(r"^round 1: \d tasks? tried, (\d+) of (\d+) trials measured", said, re.M)
    records = (tmp_path / "both" / "database_tuning_record.json").read_text().splitlines()
    warm = re.search(r"^warm start: (\d+) records of other tunes for 1 of the tasks", said, re.M)
    assert warm and len(rounds) == 1 and int(rounds[0][1]) == len(records) - int(warm[1])


def test_a_module_of_dynamic_shape_is_nobodys_relative():
    """A task whose loops have no fixed extent (a dynamic batch) cannot have its tiles
    fitted: it neither gives nor takes a relative trial, and the round goes on."""
    import tvm
    from tvm import te

    from hotdb.capture.tune.siblings import _Shape

    def scaled(rows):
        a = te.placeholder((rows, 16), name="a")
        return tvm.IRModule({"main": te.create_prim_func([a, te.compute((rows, 16), lambda i, j: a[i, j] * 2.0,
                                                                          name="b")])})

    fixed, dynamic = _Shape(scaled(8)), _Shape(scaled(te.var("n")))
    assert (fixed.blocks, fixed.flop, fixed.extents) == (["b"], 128.0, [8, 16])
    assert (dynamic.blocks, dynamic.flop, dynamic.extents) == (None, 0.0, [])
