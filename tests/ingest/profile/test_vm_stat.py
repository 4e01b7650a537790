"""`vm-stat`: the Relay VM profiler's get_stat() table, matched by its argument shapes."""

from __future__ import annotations

from helpers import DATA


def test_vm_profiler_table_with_shapes_matches_by_input_shapes(cli):
    result = cli("ingest", DATA / "vm-stat/vgg16.shapes.vm_stat.txt", DATA / "thread/vgg16.relay.txt",
                 DATA / "thread/vgg16.kernels.txt", "--model", "m")
    assert "as vm-stat (profile): 22 rows" in result.err
    kernels = {m["func_name"]: m for m in cli("matches", "-f", "json").json()}
    conv = kernels["vm_mod_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1"]
    assert conv["method"] == "workload" and conv["task_name"] == "conv2d_NCHWc.x86"
    calls = cli("sql", "SELECT calls FROM nodes WHERE func_name = 'vm_mod_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1'",
                "-f", "json").json()
    assert calls == [{"calls": 20}]  # two call sites over 10 inferences
    plain = cli("--db", DATA.parent / "unused.duckdb", "formats", "-f", "json", use_db=False).json()
    assert {"vm-stat", "debug-log", "ansor-tasks"} <= {f["format"] for f in plain}
