"""Historical comparison: a 2x slower task among noisy ones is the one significant regression."""

from __future__ import annotations

import random

import pytest

from hotdb.examples import make_vgg16 as gen


def write_run(path, slow_factor: float, seed: int):
    rng = random.Random(16)  # the same network and kernel speeds as the example
    calls = gen.build_calls(rng)
    funcs = gen.name_kernels(calls, "tvmgen_default_")
    nodes = gen.node_names(funcs)
    slow = next(c for c in calls if c.shape_key == (256, 512, 28))  # conv4_1, one call
    slow.time_us *= slow_factor
    path.write_text(gen.debug_table(calls, funcs, nodes, random.Random(seed), measurements=True, repeats=5))
    return path


@pytest.fixture
def two_runs(cli, tmp_path, vgg16):
    base = write_run(tmp_path / "base.txt", 1.0, 1)
    slow = write_run(tmp_path / "slow.txt", 2.0, 2)
    cli("ingest", base, vgg16["relay"], vgg16["tasks"], "--model", "vgg16", "--run", "base")
    cli("ingest", slow, "--model", "vgg16", "--run", "slow")
    return cli


def test_one_task_twice_as_slow_is_the_only_significant_regression(two_runs):
    cli = two_runs
    rows = cli("compare", "base", "slow", "-f", "json").json()
    assert rows[0]["item"] == "(end to end)"
    regressions = [r for r in rows if r["verdict"] == "regression" and r["item"] != "(end to end)"]
    assert [r["task_args"][1] for r in regressions] == [["TENSOR", [512, 256, 3, 3], "float32"]]
    assert regressions[0]["ratio"] == pytest.approx(2.0, rel=0.05) and regressions[0]["significant"]
    noisy = [r for r in rows if r["item"] != "(end to end)" and r not in regressions]
    assert all(not r["significant"] and r["verdict"] == "unchanged" for r in noisy)
    for r in rows:
        assert set(r) >= {"item", "task_name", "task_args", "time_a_us", "time_b_us", "ratio", "significant", "verdict"}
    assert cli("compare", "base", "slow", "--fail-on-regression", "5").code == 1
    assert cli("compare", "base", "slow", "--fail-on-regression", "150").code == 0  # 2x is +100 %
    swapped = cli("compare", "slow", "base", "--fail-on-regression", "5", "-f", "json")
    assert swapped.code == 0
    improved = [r for r in swapped.json() if r["verdict"] == "improvement" and r["item"] != "(end to end)"]
    assert len(improved) == 1 and improved[0]["ratio"] == pytest.approx(0.5, rel=0.05)


def test_defaults_threshold_and_single_samples(two_runs, vgg16):
    cli = two_runs
    default = cli("compare", "-f", "json").json()
    named = cli("compare", "base", "slow", "-f", "json").json()
    assert [(r["item"], r["verdict"]) for r in default] == [(r["item"], r["verdict"]) for r in named]
    assert not [r for r in cli("compare", "--threshold", "150", "-f", "json").json() if r["significant"]]
    # a table without Measurements(us): one sample per node, never significant
    cli("ingest", vgg16["table"], "--model", "vgg16", "--run", "plain")
    rows = cli("compare", "base", "plain", "-f", "json").json()
    assert all(r["samples_b"] == 1 and not r["significant"] for r in rows if r["samples_b"] is not None)


def test_history_of_one_task(two_runs):
    cli = two_runs
    slow_key = next(r["item"] for r in cli("compare", "-f", "json").json() if r["verdict"] == "regression" and r["task_name"])
    rows = cli("history", "--workload", slow_key, "-f", "json").json()
    assert [r["run"] for r in rows] == ["base", "slow"]
    assert rows[1]["time_us"] == pytest.approx(2 * rows[0]["time_us"], rel=0.05)
    assert cli("history").code == 1


def test_compare_by_op_and_kernel(two_runs):
    cli = two_runs
    ops = {r["item"]: r for r in cli("compare", "--by", "op", "-f", "json").json()}
    assert ops["op conv2d"]["ratio"] > 1.03 and ops["op max_pool2d"]["verdict"] == "unchanged"
    kernels = cli("compare", "--by", "node", "-f", "json").json()
    assert all(r["item"].startswith(("kernel ", "(end to end)")) for r in kernels)
    assert sum(1 for r in kernels if r["verdict"] == "regression" and r["item"] != "(end to end)") == 1
