"""Historical comparison: a 2x slower task among noisy ones is the one significant regression."""

from __future__ import annotations

import pytest
from helpers import DATA, write_run


@pytest.fixture
def two_runs(cli, tmp_path, vgg16):
    base = write_run(tmp_path / "base.txt", 1.0, 1)
    slow = write_run(tmp_path / "slow.txt", 2.0, 2)
    cli("ingest", base, vgg16["relay"], vgg16["tasks"], "--model", "vgg16", "--run", "base")
    cli("ingest", slow, "--model", "vgg16", "--run", "slow")
    return cli


def test_one_task_twice_as_slow_is_the_only_change_told(two_runs):
    """One capture a side, no other run of the build: only changes beyond the noise
    assumed between captures are told; the rest is "can't tell", with what to do."""
    cli = two_runs
    rows = cli("compare", "base", "slow", "-f", "json").json()
    assert rows[0]["item"] == "(end to end)"
    slower = [r for r in rows if r["verdict"] == "slower" and r["item"] != "(end to end)"]
    assert [r["task_args"][1] for r in slower] == [["TENSOR", [512, 256, 3, 3], "float32"]]
    assert slower[0]["ratio"] == pytest.approx(2.0, rel=0.05) and slower[0]["significant"]
    assert slower[0]["ratio_low"] < slower[0]["ratio"] < slower[0]["ratio_high"] and slower[0]["noise_from"] == "samples"
    rest = [r for r in rows if r["item"] != "(end to end)" and r not in slower]
    assert all(not r["significant"] and r["verdict"] == "can't tell" and "--replicates 3" in r["reason"] for r in rest)
    for r in rows:
        assert set(r) >= {"item", "task_name", "task_args", "time_a_us", "time_b_us", "ratio", "ratio_low", "ratio_high",
                          "noise_pct", "significant", "verdict", "reason", "runs_a", "samples_a"}
    assert cli("compare", "base", "slow", "--fail-on-regression", "5").code == 1
    assert cli("compare", "base", "slow", "--fail-on-regression", "150").code == 0  # 2x is +100 %
    swapped = cli("compare", "slow", "base", "--fail-on-regression", "5", "-f", "json")
    assert swapped.code == 0
    faster = [r for r in swapped.json() if r["verdict"] == "faster" and r["item"] != "(end to end)"]
    assert len(faster) == 1 and faster[0]["ratio"] == pytest.approx(0.5, rel=0.05)


def test_defaults_threshold_and_single_samples(two_runs, vgg16):
    cli = two_runs
    default = cli("compare", "-f", "json").json()
    named = cli("compare", "base", "slow", "-f", "json").json()
    assert [(r["item"], r["verdict"]) for r in default] == [(r["item"], r["verdict"]) for r in named]
    assert not [r for r in cli("compare", "--threshold", "150", "-f", "json").json() if r["significant"]]
    # a table without Measurements(us): one time per node, nothing to judge by
    cli("ingest", vgg16["table"], "--model", "vgg16", "--run", "plain")
    rows = cli("compare", "base", "plain", "-f", "json").json()
    assert all(r["samples_b"] == 0 and r["verdict"] == "can't tell" and "no repeated samples" in r["reason"]
               for r in rows if r["item"] != "(end to end)")


def test_replicates_tell_a_ten_percent_slowdown_and_nothing_else(cli, tmp_path, vgg16):
    """Three runs a side (comma-separated labels): the spread between runs is the noise;
    the 10 % slower conv is told, with its interval, the rest is within
    noise, and an A/A comparison of the same build calls nothing."""
    labels = {}
    for side, factor in (("a", 1.0), ("b", 1.1), ("c", 1.0)):
        for i in range(3):
            path = write_run(tmp_path / f"{side}{i}.txt", factor, seed=10 * ord(side) + i)
            first = [vgg16["relay"], vgg16["tasks"]] if (side, i) == ("a", 0) else []
            assert cli("ingest", path, *first, "--model", "vgg16", "--run", f"{side}{i}").code == 0
        labels[side] = ",".join(f"{side}{i}" for i in range(3))
    rows = cli("compare", labels["a"], labels["b"], "-f", "json").json()
    told = [r for r in rows if r["verdict"] in ("slower", "faster") and r["item"] != "(end to end)"]
    assert [r["task_args"][1] for r in told] == [["TENSOR", [512, 256, 3, 3], "float32"]]
    assert told[0]["verdict"] == "slower" and told[0]["ratio"] == pytest.approx(1.1, rel=0.03)
    assert 1 < told[0]["ratio_low"] < told[0]["ratio"] < told[0]["ratio_high"]
    assert told[0]["noise_from"] == "runs" and told[0]["runs_a"] == told[0]["runs_b"] == 3
    assert {r["verdict"] for r in rows if r not in told and r["item"] != "(end to end)"} == {"within noise"}
    same = cli("compare", labels["a"], labels["c"], "-f", "json").json()
    assert {r["verdict"] for r in same} == {"within noise"}
    assert cli("compare", labels["a"], labels["c"], "--fail-on-regression", "5").code == 0
    assert cli("compare", labels["a"], "a0").code == 1  # a run on both sides


def test_history_judges_a_single_capture(cli, tmp_path, vgg16):
    """Five runs of the build already stored: one capture a side is judged against their
    spread (view item_noise), and a 25 % slowdown is told."""
    for i in range(5):
        first = [vgg16["relay"], vgg16["tasks"]] if i == 0 else []
        cli("ingest", write_run(tmp_path / f"h{i}.txt", 1.0, seed=100 + i), *first, "--model", "vgg16", "--run", f"h{i}")
    cli("ingest", write_run(tmp_path / "slow.txt", 1.25, seed=200), "--model", "vgg16", "--run", "slow")
    noise = cli("sql", "SELECT item, runs, spread_pct, enough FROM item_noise WHERE item <> '(end to end)'", "-f", "json").json()
    assert noise and all(r["runs"] == 6 and r["enough"] and r["spread_pct"] >= 0 for r in noise)
    rows = cli("compare", "h4", "slow", "-f", "json").json()
    told = [r for r in rows if r["verdict"] in ("slower", "faster") and r["item"] != "(end to end)"]
    assert [(r["verdict"], r["noise_from"]) for r in told] == [("slower", "runs")]
    assert told[0]["ratio"] == pytest.approx(1.25, rel=0.05)
def test_history_of_one_task(two_runs):
    cli = two_runs
    slow_key = next(r["item"] for r in cli("compare", "-f", "json").json() if r["verdict"] == "slower" and r["task_name"])
    rows = cli("history", "--workload", slow_key, "-f", "json").json()
    assert [r["run"] for r in rows] == ["base", "slow"]
    assert rows[1]["time_us"] == pytest.approx(2 * rows[0]["time_us"], rel=0.05)
    assert cli("history").code == 2  # a usage error: the item is not named


def test_compare_by_op_and_kernel(two_runs):
    cli = two_runs
    ops = {r["item"]: r for r in cli("compare", "--by", "op", "-f", "json").json()}
    assert ops["op conv2d"]["ratio"] > 1.03 and ops["op max_pool2d"]["verdict"] == "can't tell"
    kernels = cli("compare", "--by", "node", "-f", "json").json()
    assert all(r["item"].startswith(("kernel ", "(end to end)")) for r in kernels)
    assert sum(1 for r in kernels if r["verdict"] == "slower" and r["item"] != "(end to end)") == 1


def test_runtime_time_on_one_side_only_is_not_judged_added_or_removed(cli, tmp_path):
    """A VM builtin, or the runtime's overhead (a live capture leaves it out where the whole
    run less its kernels came to <= 0), present in one run only: not a kernel, so never
    'added' or 'removed', whatever the noise made of it."""
    plain = (DATA / "profile-report" / "resnet50_nhwc.report.csv").read_text()
    with_builtin = plain + '"float32[1, 1000]",1,"cpu0",12.5,"0","vm.builtin.alloc_storage",0.05,"","","","","",""\n'
    (tmp_path / "a.csv").write_text(with_builtin)
    (tmp_path / "b.csv").write_text(plain)
    for side in ("a", "b"):
        assert cli("ingest", tmp_path / f"{side}.csv", "--model", "r50", "--run", side).code == 0
    rows = {r["item"]: r for r in cli("compare", "a", "b", "--by", "kernel", "-f", "json").json()}
    builtin = rows["kernel vm.builtin.alloc_storage"]
    assert builtin["time_a_us"] == pytest.approx(12.5) and builtin["time_b_us"] is None
    assert builtin["verdict"] == "can't tell" and "not a kernel" in builtin["reason"]
    assert {r["verdict"] for r in rows.values()} <= {"can't tell", "within noise"}  # the same kernels both sides
