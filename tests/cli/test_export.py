"""Exporting the tasks that cover most of the runtime, in the tuners' own formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import DATA, expected_minimal_tasks, real, relax_vm_report


def test_autotvm_log_export_is_exactly_the_selected_records(cli, tmp_path, vgg16):
    assert cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], vgg16["log"], "--model", "vgg16").code == 0
    truth = json.loads(vgg16["truth"].read_text())
    chosen_args = {args for _, args in expected_minimal_tasks(truth, vgg16["table"], 90)}
    log_lines = vgg16["log"].read_text().splitlines()
    # every template of a selected workload (dense_nopack and dense_pack share their args)
    expected = [l for l in log_lines if json.dumps(json.loads(l)["input"][2]) in chosen_args]
    out = tmp_path / "best.log"
    result = cli("export", "--coverage", "90", "--to", "autotvm-log", "-o", out)
    assert result.code == 0, result.err
    assert out.read_text().splitlines() == expected
    assert f"{len(expected)} tuning records written" in result.err
    # the same from a log file that was never ingested
    again = tmp_path / "again.log"
    assert cli("export", "--to", "autotvm-log", "--log", vgg16["log"], "-o", again).code == 0
    assert again.read_text() == out.read_text()


def test_task_list_exports(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    tasks = cli("export", "--to", "autotvm-tasks").json()
    listing = [l for l in vgg16["tasks"].read_text().splitlines()]
    assert all(name in ("conv2d_NCHWc.x86", "dense_nopack.x86", "dense_pack.x86") for name, _ in tasks)
    assert tasks[0][1][0] == ["TENSOR", [1, 512, 28, 28], "float32"]  # the hottest first
    indices = [int(i) for i in cli("export", "--to", "tvmc-tasks").out.strip().split(",")]
    by_index = {i: listing[i] for i in indices}
    assert len(indices) == len(tasks)
    for name, args in tasks:
        shape = str(tuple(args[0][1]))
        assert any(name in line and shape in line for line in by_index.values()), (name, shape)


def test_tvmc_order_unknown_is_refused(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["log"], "--model", "vgg16")
    result = cli("export", "--to", "tvmc-tasks")
    assert result.code == 1 and "printed task list" in result.err


def test_selection_as_data(cli, vgg16):
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    rows = cli("export", "--to", "json", "--coverage", "50").json()
    assert {r["workload"] for r in rows} and all(r["cumulative_pct"] - r["share_pct"] < 50 for r in rows)
    result = cli("export", "--to", "json", "--coverage", "50")
    assert "have no tuning record" in result.err  # no log ingested


def test_all_models_counts_shared_workloads_once_with_weighted_time(cli, vgg16):
    from helpers import DATA
    cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "a")
    cli("ingest", DATA / "debug-dump/vgg16/tvmdbg_vgg16", vgg16["relay"], vgg16["tasks"], "--model", "b")
    per_model = {m: {r["workload"]: r["time_us"] for r in cli("top", "--model", m, "-f", "json").json()} for m in "ab"}
    totals = {m: cli("sql", f"SELECT tunable_time_us FROM run_totals JOIN models USING (model_id) WHERE name = '{m}'",
                     "-f", "json").json()[0]["tunable_time_us"] for m in "ab"}
    rows = cli("top", "--all-models", "--weight", "b=2", "-f", "json").json()
    assert len(rows) == len(set(per_model["a"]) | set(per_model["b"]))  # each shared workload once
    for row in rows:
        expected = per_model["a"].get(row["workload"], 0) + 2 * per_model["b"].get(row["workload"], 0)
        assert row["time_us"] == pytest.approx(expected)
        assert row["share_pct"] == pytest.approx(100 * expected / (totals["a"] + 2 * totals["b"]))
        assert row["models"] == [m for m in "ab" if row["workload"] in per_model[m]]
    chosen = cli("export", "--all-models", "--to", "autotvm-tasks", "--coverage", "60").json()
    assert len(chosen) == len({json.dumps(c) for c in chosen})  # a task two models share is exported once
    assert cli("top", "--all-models", "--weight", "nope=2").code == 1


@pytest.fixture
def ms_model(cli, tmp_path):
    """A Relax build with its MetaSchedule tasks and records (tests/data/ms-database)."""
    report = relax_vm_report(tmp_path / "small_convnet.report.json")
    result = cli("ingest", report, DATA / "relax/small_convnet.fused.relax.py", DATA / "ms-database/small_convnet",
                 "--model", "convnet")
    assert result.code == 0, result.err
    return cli


def _lines(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in ("database_workload.json", "database_tuning_record.json")}


def test_an_export_into_a_users_metaschedule_database_keeps_every_record_of_theirs(ms_model, tmp_path):
    """A tune's work folder of someone else's (a real one: 207 records of 2 workloads, of
    the MetaSchedule of 2022): the export merges into it, their bytes first and unchanged,
    its records after them under its workloads' new numbers; exported again, nothing is
    added twice. --force replaces it, and says so."""
    cli = ms_model
    fresh = tmp_path / "fresh"
    assert cli("export", "--to", "metaschedule", "--coverage", "100", "-o", fresh).code == 0
    ours = _lines(fresh)
    users = tmp_path / "tune_tmp"
    shutil.copytree(real("ms-database/mlclearning_tune_tmp"), users)
    theirs = _lines(users)
    merged = cli("export", "--to", "metaschedule", "--coverage", "100", "-o", users)
    assert merged.code == 0, merged.err
    after = _lines(users)
    for name in theirs:
        assert after[name].startswith(theirs[name]), name  # every byte of theirs, in place
    their_records = theirs["database_tuning_record.json"].count(b"\n")
    our_records = ours["database_tuning_record.json"].count(b"\n")
    assert after["database_tuning_record.json"].count(b"\n") == their_records + our_records
    assert f"its {their_records} records and 2 workloads kept as they were, {our_records} records and 1 workloads added" \
        in merged.err.replace("\n", " ")
    added = after["database_tuning_record.json"][len(theirs["database_tuning_record.json"]):].decode().splitlines()
    assert {json.loads(line)[0] for line in added} == {2}  # their workloads are 0 and 1: ours is the third
    assert [json.loads(line)[1] for line in added] == [json.loads(line)[1] for line in
                                                      ours["database_tuning_record.json"].decode().splitlines()]
    again = cli("export", "--to", "metaschedule", "--coverage", "100", "-o", users)
    assert again.code == 0 and _lines(users) == after and "0 records and 0 workloads added" in again.err.replace("\n", " ")
    replaced = cli("export", "--to", "metaschedule", "--coverage", "100", "-o", users, "--force")
    assert replaced.code == 0 and "--force: the MetaSchedule database" in replaced.err
    assert _lines(users) == ours


def test_an_export_never_appends_to_a_cut_line_or_replaces_a_tasks_json_of_theirs(ms_model, tmp_path):
    cli = ms_model
    folder = tmp_path / "work"
    shutil.copytree(DATA / "ms-database/small_convnet", folder)
    records = folder / "database_tuning_record.json"
    records.write_bytes(records.read_bytes()[:-40])  # a tune killed while it wrote its last record
    before = _lines(folder)
    result = cli("export", "--to", "metaschedule", "--coverage", "100", "-o", folder)
    assert result.code == 1 and f"{records}:4: the last line is cut short" in result.err.replace("\n", "")
    assert _lines(folder) == before and not (folder / "tasks.json").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "tasks.json").write_text('["my own list"]\n')
    result = cli("export", "--to", "metaschedule", "--coverage", "100", "-o", other)
    assert result.code == 1 and "is not a tasks.json hotdb exported" in result.err
    assert (other / "tasks.json").read_text() == '["my own list"]\n'


def test_an_export_of_records_a_folder_holds_adds_none(ms_model, tmp_path):
    """The folder the records came from (the same workload, the same records): its files
    are left as they were, byte for byte."""
    cli = ms_model
    folder = tmp_path / "work"
    shutil.copytree(DATA / "ms-database/small_convnet", folder)
    before = _lines(folder)
    result = cli("export", "--to", "metaschedule", "--coverage", "100", "-o", folder)
    assert result.code == 0 and _lines(folder) == before
    assert "0 records and 0 workloads added" in result.err.replace("\n", " ")


def test_a_merged_database_is_one_metaschedule_loads(ms_model, tmp_path):
    """Today's MetaSchedule reads the merged folder whole: their records and ours."""
    from tvm.s_tir import meta_schedule as ms

    cli = ms_model
    folder = tmp_path / "work"
    shutil.copytree(DATA / "ms-database/small_convnet", folder)
    workload = json.loads((folder / "database_workload.json").read_text())
    workload[0] = "123"  # a workload of their own, as far as hashes tell
    (folder / "database_workload.json").write_text(json.dumps(workload) + "\n")
    theirs = len(ms.database.JSONDatabase(work_dir=str(folder)).get_all_tuning_records())
    assert cli("export", "--to", "metaschedule", "--coverage", "100", "-o", folder).code == 0
    merged = ms.database.JSONDatabase(work_dir=str(folder)).get_all_tuning_records()
    ours = (DATA / "ms-database/small_convnet/database_tuning_record.json").read_text().count("\n")
    assert len(merged) == theirs + ours
