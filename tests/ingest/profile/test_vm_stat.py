"""Profiler reports (JSON, CSV, table) and the profiles of older runtimes (VM get_stat, debug log lines)."""

from __future__ import annotations

from helpers import DATA

REPORTS = DATA / "profile-report"


MALFORMED = {
    "graph.json": ('{"nodes": [{"op": "tvm_op", "name": "k", "attrs": {"func_name": "k"}, "inputs": [[5, 0, 0]]}], '
                   '"arg_nodes": [], "attrs": {"shape": ["list_shape", [[1, 2]]]}, "node_row_ptr": [0, 1]}', "shape list"),
    "v01.log": ('{"i": ["llvm", "topi_nn_conv2d", [["TENSOR", [1, 3, 8, 8], "float32"]], {}, "not a list", {}], "r": [[1e-3], 0, 1.0, 1], "v": 0.1}\n',
                "expected i = [target"),
    "bad.relax.py": ('@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):\n'
                     '        lv: R.Tensor((1, 3), dtype="float32") = R.nn.relu(x\n', "bad.relax.py:5"),
}


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
