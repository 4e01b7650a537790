"""auto_scheduler logs of every workload-key era, and its printed task lists."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, parse, sample

from hotdb.ingest import get
from hotdb.ingest.base import Source


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


@pytest.mark.parametrize("name", ["ansor-tasks/small_nhwc.txt"])
def test_printed_ansor_task_list(name):
    parsed = get("ansor-tasks").parse(Source.read(DATA / name))
    assert [t.workload_key for t in parsed.tasks] == [
        "conv2d float32 d=1x3x32x32 w=16x3x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1", "dense float32 d=1x1024 w=10x1024"]
    assert parsed.tasks[0].args_flat == "1,32,32,3,3,3,3,16,1,16,16,16"
