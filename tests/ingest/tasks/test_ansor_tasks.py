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


EVERY_KIND = DATA / "ansor-tasks" / "every_kind_nhwc.txt"


def test_made_task_list_is_what_the_generator_writes(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_ansor", DATA / "ansor-tasks" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(tmp_path)
    assert (tmp_path / EVERY_KIND.name).read_text() == EVERY_KIND.read_text()


def test_the_dag_gives_the_workload_of_every_kind_it_determines():
    """Depthwise (NHWC at strides 1 and 2, NCHW), winograd (its tile kernel back to 3x3),
    batch_matmul, a global pool, a max pool at stride 1; a max pool at stride 2 has several
    windows that fit its sizes, so its family is said and no workload is made up."""
    parsed = get("ansor-tasks").parse(Source.read(EVERY_KIND))
    assert [(t.op_family, t.variant, t.workload_key) for t in parsed.tasks] == [
        ("depthwise_conv2d", "nested", "depthwise_conv2d float32 d=1x128x56x56 w=128x1x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=128"),
        ("depthwise_conv2d", "nested", "depthwise_conv2d float32 d=1x128x56x56 w=128x1x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=128"),
        ("depthwise_conv2d", "nested", "depthwise_conv2d float32 d=1x64x28x28 w=64x1x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=64"),
        ("conv2d", "winograd", "conv2d float32 d=1x128x28x28 w=128x128x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"),
        ("conv2d", "winograd", "conv2d float32 d=1x64x56x56 w=64x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"),
        ("batch_matmul", "nested", "batch_matmul float32 d=12x128x64 w=12x128x64"),
        ("global_avg_pool2d", "nested", "global_avg_pool2d float32 d=1x1024x7x7 pool=7x7"),
        ("max_pool2d", "nested", "max_pool2d float32 d=1x64x56x56 s=1x1 p=1,1,1,1 dl=1x1 g=1 pool=3x3"),
        ("max_pool2d", "nested", None),
        ("softmax", "nested", "softmax float32 d=1x1000 axis=1"),
    ]
    assert not [w for w in parsed.warnings if "cannot derive" in w]
    flops = {key: w.flops for key, w in parsed.workloads.items()}
    assert flops["softmax float32 d=1x1000 axis=1"] is None  # no multiply-adds: no FLOPs made up
    assert flops["conv2d float32 d=1x64x56x56 w=64x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"] == 2 * 64 * 56 * 56 * 64 * 9


def test_a_winograd_task_names_the_workload_of_the_relay_convolution_it_computes():
    from hotdb.workload import from_relay_call

    parsed = get("ansor-tasks").parse(Source.read(EVERY_KIND))
    relay = from_relay_call("nn.conv2d", {"padding": [1, 1, 1, 1], "data_layout": "NHWC", "kernel_layout": "HWIO"},
                            [(1, 56, 56, 64), (3, 3, 64, 64)], ["float32"])
    assert parsed.tasks[4].workload_key == relay.key


def test_the_stored_tasks_of_every_kind(cli, db):
    result = cli("ingest", EVERY_KIND, "--model", "m")
    assert result.code == 0, result.err
    tasks = cli("sql", "SELECT op_family, workload_key, data_shape_logical, weight_shape_logical FROM tasks "
                "ORDER BY task_index", "-f", "json").json()
    assert tasks[6] == {"op_family": "global_avg_pool2d", "workload_key": "global_avg_pool2d float32 d=1x1024x7x7 pool=7x7",
                        "data_shape_logical": [1, 1024, 7, 7], "weight_shape_logical": None}
    workloads = cli("sql", "SELECT workload_key, flops FROM workloads ORDER BY 1", "-f", "json").json()
    assert {w["workload_key"]: w["flops"] for w in workloads}["softmax float32 d=1x1000 axis=1"] is None
