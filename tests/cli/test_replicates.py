"""`profile --replicates`: captures in processes of their own, stored as one group that
`compare` takes as a side, whose spread joins the build's noise floor (view item_noise)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_replicates_are_a_side_and_part_of_the_builds_history(cli):
    assert cli("profile", "mlp", "--repeat", "3", "--run", "single").code == 0
    made = cli("profile", "mlp", "--repeat", "3", "--replicates", "2", "--run", "g")
    assert made.code == 0, made.err
    assert "replicate group g: runs g.1 .. g.2" in made.out + made.err
    runs = cli("sql", "SELECT label, replicate_of, _quiet_run(others_cpu_pct) AS quiet FROM runs ORDER BY label",
               "-f", "json").json()
    assert [(r["label"], r["replicate_of"]) for r in runs] == [("g.1", "g"), ("g.2", "g"), ("single", None)]

    # one build: the group's runs and the single one are its history alike (a capture
    # beside busy processes, on a busy machine, is left out)
    quiet = sum(r["quiet"] for r in runs)
    noise = cli("sql", "SELECT count(DISTINCT build) AS builds, max(runs) AS runs FROM item_noise",
                "-f", "json").json()[0]
    assert noise["builds"] == (1 if quiet else 0)
    assert noise["runs"] == (quiet or None)

    rows = {r["item"]: r for r in cli("compare", "single", "g", "--by", "kernel", "-f", "json").json()}
    overhead = rows.get("kernel vm.overhead")  # the whole run less its kernels: not judged
    assert overhead is None or (overhead["verdict"] == "can't tell" and "not a kernel" in overhead["reason"])
    kernel = rows["kernel fused_matmul_add_relu"]
    assert kernel["runs_b"] in (1, 2) and kernel["samples_b"] == 3 * kernel["runs_b"]  # every run's samples
    if all(r["quiet"] for r in runs):
        assert kernel["noise_from"] == "runs" and kernel["runs_b"] == 2
        assert kernel["verdict"] in ("within noise", "faster", "slower")
        assert kernel["ratio_low"] < kernel["ratio"] < kernel["ratio_high"]
    else:
        assert kernel["verdict"] == "can't tell" or kernel["runs_b"] == 1
