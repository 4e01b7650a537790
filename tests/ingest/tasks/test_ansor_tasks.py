"""`ansor-tasks`: auto_scheduler's printed task lists, with their compute DAGs."""

from __future__ import annotations

import pytest
from helpers import DATA

from hotdb.ingest import get
from hotdb.ingest.source import Source


@pytest.mark.parametrize("name", ["ansor-tasks/small_nhwc.txt"])
def test_printed_ansor_task_list(name):
    parsed = get("ansor-tasks").parse(Source.read(DATA / name))
    assert [t.workload_key for t in parsed.tasks] == [
        "conv2d float32 d=1x3x32x32 w=16x3x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1", "dense float32 d=1x1024 w=10x1024"]
    assert parsed.tasks[0].args_flat == "1,32,32,3,3,3,3,16,1,16,16,16"
