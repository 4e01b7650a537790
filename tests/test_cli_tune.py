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
