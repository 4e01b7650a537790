"""hotdb tune on a small zoo model with a tiny budget (slow: about 40 s)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_tune_only_the_hotspot_and_prove_it_applied(cli, tmp_path):
    work = tmp_path / "tune"
    result = cli("tune", "mlp", "--coverage", "60", "--trials", "8", "--work-dir", work, "-f", "json")
    assert result.code == 0, result.err
    rows = {r["item"]: r for r in result.json()}
    tuned = [r for r in rows.values() if r["tuned"]]
    untouched = [r for r in rows.values() if r["tuned"] is False]
    baseline_top = cli("top", "--run", "mlp-1", "--coverage", "60", "-f", "json").json()
    assert sorted(r["item"] for r in tuned) == sorted(r["task_name"] for r in baseline_top)  # the hotspots, only
    # the database really applied: the tuned kernels are faster in the new run, not only the total
    assert all(r["after_us"] < r["before_us"] / 1.5 for r in tuned)
    assert all(0.5 < r["after_us"] / r["before_us"] < 2.0 for r in untouched)
    assert rows["(end to end)"]["after_us"] < rows["(end to end)"]["before_us"]
    runs = cli("sql", "SELECT label, baseline_run_id, tags FROM runs ORDER BY run_id", "-f", "json").json()
    assert len(runs) == 2 and runs[1]["baseline_run_id"] == 1 and runs[1]["tags"]["tuned_from"] == runs[0]["label"]
    assert (work / "database_tuning_record.json").exists() and (work / "tune.log").exists()
    records = cli("sql", "SELECT count(*) AS n FROM tuning_records JOIN sources USING (source_id) WHERE format = 'ms-database'",
                  "-f", "json").json()
    assert records[0]["n"] == sum(1 for _ in (work / "database_tuning_record.json").open())
    # the records are the model's own task's, whatever wrote them: one task, its records, measured ones
    tasks = {t["task_name"]: t for t in cli("tasks", "-f", "json").json()}
    for row in tuned:
        assert tasks[row["item"]]["valid_records"] >= 1
        assert "ms-database" in tasks[row["item"]]["formats"]
    assert not [name for name in tasks if name.isdigit()]  # no task named by its structural hash


def test_a_tune_whose_trials_all_fail_says_so_and_tunes_nothing(cli, tmp_path):
    """A builder limit of a millisecond: every trial fails. The tune exits 1, names the
    cause and the option, adds no run, and keeps the failed records under the model's task."""
    work = tmp_path / "tune"
    result = cli("tune", "mlp", "--coverage", "60", "--trials", "2", "--work-dir", work, "--build-timeout", "0.001")
    assert result.code == 1
    assert "no trial of 2 succeeded" in result.err and "LocalBuilder: Timeout" in result.err
    assert "--build-timeout" in result.err and "Traceback" not in result.err
    assert result.err.count("error in building") >= 2  # each failure said as it happened
    runs = cli("sql", "SELECT label FROM runs", "-f", "json").json()
    assert [r["label"] for r in runs] == ["mlp-1"]  # the baseline only: nothing was re-profiled as tuned
    tasks = {t["task_name"]: t for t in cli("tasks", "-f", "json").json()}
    hot = cli("top", "--run", "mlp-1", "--coverage", "60", "-f", "json").json()[0]["task_name"]
    assert tasks[hot]["records"] == 2 and tasks[hot]["valid_records"] == 0
    assert not [name for name in tasks if name.isdigit()]
