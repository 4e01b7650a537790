"""`ansor-log`: auto_scheduler logs of every workload-key era, and one of our own matched to its report."""

from __future__ import annotations

import json

import pytest
from helpers import DATA, parse, sample


def test_ansor_samples_all_eras():
    _, flat = parse(sample("ansor_cilog_resnet-50-NHWC-B1-llvm.json"))
    lines = [l for l in sample("ansor_cilog_resnet-50-NHWC-B1-llvm.json").read_text().splitlines() if l.startswith("{")]
    assert len(flat.records) == len(lines)
    keys = {json.loads(l)["i"][0][0] for l in lines}
    assert len(flat.tasks) == len(keys)
    t = next(t for t in flat.tasks if t.task_name == "69115f188984ae34ede37c3b8ca40b43")
    assert t.args_flat == "1,7,7,2048,1,1,1,2048" and t.variant == "flattened"
    _, nested = parse(sample("ansor_cilog_resnet-18-NHWC-B1-cuda.json"))
    assert all(t.variant == "nested" for t in nested.tasks)
    _, conv = parse(sample("ansor_cilog_conv2d.json"))
    assert conv.tasks[0].workload_key == "conv2d float32 d=1x512x7x7 w=512x512x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    _, matmul = parse(sample("ansor_cilog_matmul.json"))
    assert matmul.tasks[0].workload_key == "dense float32 d=1024x1024 w=1024x1024"


def test_a_log_of_our_own_matches_every_kernel_of_its_report_by_argument_dims(cli):
    """tests/data/ansor-log/make_log.py: one task a tunable kernel of the report beside it,
    keyed by the kernel's argument dims (output last), a failed record after each measured
    one. Every kernel with a task matches it by its shapes; the failed records are kept
    but are never a task's best."""
    log = DATA / "ansor-log" / "resnet50_nhwc.ansor.json"
    result = cli("ingest", DATA / "profile-report" / "resnet50_nhwc.report.json", log, "--model", "resnet50")
    assert result.code == 0 and "as ansor-log (tasks): 24 rows" in result.err, result.err
    keys = [json.loads(json.loads(line)["i"][0][0]) for line in log.read_text().splitlines()[::2]]
    matches = cli("matches", "-f", "json").json()
    tunable = [m for m in matches if "layout_transform" not in m["func_name"] and "max_pool" not in m["func_name"]]
    assert {m["method"] for m in tunable} == {"workload"} and {m["confidence"] for m in tunable} == {1.0}
    assert sorted({m["task_name"] for m in tunable}) == sorted(k[0] for k in keys)
    for m in tunable:
        assert m["task_args"] in keys, m["func_name"]
    best = cli("sql", "SELECT count(*) AS n, min(error_no) AS e FROM tuning_records", "-f", "json").json()
    assert best == [{"n": 16, "e": 0}]
    measured = {json.loads(r["i"][0][0])[0]: r["r"][0][0] * 1e6 for r in map(json.loads, log.read_text().splitlines())
                if r["r"][1] == 0}
    tasks = cli("tasks", "-f", "json").json()
    assert {t["task_name"]: (t["records"], t["valid_records"]) for t in tasks} == {k: (2, 1) for k in measured}
    assert {t["task_name"]: t["best_cost_us"] for t in tasks} == pytest.approx(measured)
