"""Exporting the tasks that cover most of the runtime, in the tuners' own formats."""

from __future__ import annotations

import json

import pytest
from helpers import expected_minimal_tasks


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
