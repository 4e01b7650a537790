"""The formats of issue 3: profiler reports, auto_scheduler and v0.1 AutoTVM logs, and
exact matching by input shapes (ladder rule 2)."""

from __future__ import annotations

import json

import pytest

from conftest import DATA, sample, table_counts
from hotdb.errors import ParseError
from hotdb.ingest import detect
from hotdb.ingest.base import Source

REPORTS = DATA / "profile-report"


def parse(path):
    source = Source.read(path)
    ingestor = detect(source)
    return ingestor.name, ingestor.parse(source)


@pytest.mark.parametrize("suffix", ["json", "csv", "txt"])
def test_profile_report_encodings_agree(suffix):
    name, parsed = parse(REPORTS / f"resnet50_nhwc.report.{suffix}")
    assert name == "profile-report"
    by_kernel = {}
    for n in parsed.nodes:
        k = by_kernel.setdefault(n.func_name, [0, 0.0, n])
        k[0] += n.calls
        k[1] += n.time_us
    conv = by_kernel["tvmgen_default_fused_nn_conv2d_add_nn_relu_1"]
    assert conv[0] == 3  # three calls, aggregated or not
    assert conv[1] == pytest.approx(2875.5 * 3.03, rel=1e-4)
    node = conv[2]
    assert node.input_shapes == [[1, 56, 56, 64], [3, 3, 64, 64], [1, 1, 1, 64]] and node.out_shape == [1, 56, 56, 64]
    assert node.data_shape_logical == [1, 64, 56, 56] and node.weight_shape_logical == [64, 64, 3, 3]
    assert node.out_shape_logical == [1, 64, 56, 56]
    assert node.args_flat == "1,56,56,64,3,3,64,64,1,1,1,64,1,56,56,64"
    assert node.device == "cpu0" and len(node.kernel_hash) == 16
    assert sum(n.calls for n in parsed.nodes) == 15


def test_profile_report_table_reads_thousands_separators_and_stops_at_sum():
    _, parsed = parse(REPORTS / "resnet50_nhwc.report.txt")
    assert len(parsed.nodes) == 10
    assert parsed.nodes[0].time_us == pytest.approx(8712.76)
    assert "Graph executor" in parsed.run.variant


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


def test_autotvm_v01_logs_use_the_workload_tuple():
    _, parsed = parse(sample("autotvm_tophub_llvm_v0.01_oldformat.log"))
    _, v02 = parse(sample("autotvm_tophub_llvm_v0.04.log"))
    first = parsed.tasks[0]
    assert first.task_name == "topi_x86_conv2d_NCHWc"
    assert first.workload_key == "conv2d float32 d=1x3x224x224 w=64x3x7x7 s=2x2 p=3,3,3,3 dl=1x1 g=1"
    # the same tophub workloads in both eras canonicalise alike
    assert {t.workload_key for t in parsed.tasks} & {t.workload_key for t in v02.tasks}
    _, cuda = parse(sample("autotvm_tophub_cuda_v0.01_oldformat_first100.log"))
    assert {t.op_family for t in cuda.tasks} >= {"conv2d", "depthwise_conv2d"}
    assert any(t.variant == "winograd" for t in cuda.tasks)


def test_every_public_sample_ingests_by_detection(cli, db):
    from conftest import SAMPLES
    files = sorted(p for p in SAMPLES.glob("*") if p.suffix != ".md") if SAMPLES.exists() else []
    if not files:
        pytest.skip(f"public samples not found in {SAMPLES}")
    for i, path in enumerate(files):
        result = cli("ingest", path, "--model", f"sample{i}")
        assert result.code == 0, (path.name, result.err)
        assert "ingested" in result.out
    assert cli("models", "-f", "json").json()[-1]["model"] == f"sample{len(files) - 1}"


def test_report_and_ansor_log_of_one_model_match_by_argument_shapes(cli):
    log = sample("ansor_cilog_resnet-50-NHWC-B1-llvm.json")
    assert cli("ingest", REPORTS / "resnet50_nhwc.report.json", log, "--model", "resnet50").code == 0
    matches = {m["func_name"]: m for m in cli("matches", "-f", "json").json()}
    conv = matches["tvmgen_default_fused_nn_conv2d_add_nn_relu_1"]
    assert conv["method"] == "workload" and conv["confidence"] == 1.0
    assert conv["task_name"] == "2350d19dc42a0665244368384c66b3a5"
    assert conv["task_args"][1:] == [1, 56, 56, 64, 3, 3, 64, 64, 1, 1, 1, 64, 1, 56, 56, 64]
    for name in ("tvmgen_default_fused_nn_conv2d_add_nn_relu", "tvmgen_default_fused_nn_conv2d_add",
                 "tvmgen_default_fused_nn_conv2d_add_add_nn_relu", "tvmgen_default_fused_nn_global_avg_pool2d"):
        assert matches[name]["method"] == "workload", name
        assert matches[name]["task_name"], name
    assert matches["tvmgen_default_fused_layout_transform"]["method"] == "unmatched"
    top = cli("top", "--by", "task", "-f", "json").json()
    assert top[0]["task_name"] == "2350d19dc42a0665244368384c66b3a5" and top[0]["calls"] == 3


@pytest.mark.parametrize("text, line", [
    ('{"calls": [{"Name": {"string": "k"}}]', 1),
    ("Argument Shapes,Count,Device,Duration (us),Name\n\"float32[1]\",1,\"cpu0\",12.5,\"k\"\n\"float32[1]\",1,\"cpu0\"\n", 3),
    ("Argument Shapes,Count,Device,Duration (us),Name\n\"float32[1]\",1,\"cpu0\",-3,\"k\"\n", 2),
    ('{"i": [["[\\"abc\\"", "llvm"], [[], []]], "r": [[1e-3], 0, 1.0, 1], "v": "v0.6"}\n', 1),
])
def test_malformed_reports_and_logs(tmp_path, cli, db, text, line):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    before = table_counts(db)
    result = cli("ingest", path, "--model", "m")
    assert result.code == 1 and f"bad.txt:{line}" in result.err.replace("\n", "") or (line == 1 and "bad.txt" in result.err)
    assert "Traceback" not in result.err
    assert table_counts(db) == before


def relax_vm_report(path):
    """A Relax VM profile of tests/data/relax/small_convnet.fused.relax.py as Report.json()
    writes it (PrimFunc names, VM builtins, Argument Shapes inputs then output)."""
    calls = [
        ("vm.builtin.check_tensor_info", "float32[1, 3, 8, 8]", 0.4),
        ("reshape", "float32[16], float32[1, 16, 1, 1]", 1.1),
        ("fused_conv2d_add_relu", "float32[1, 3, 8, 8], float32[16, 3, 3, 3], float32[1, 16, 1, 1], float32[1, 16, 8, 8]", 31.5),
        ("reshape", "float32[16], float32[1, 16, 1, 1]", 1.0),
        ("fused_conv2d1_add_relu", "float32[1, 16, 8, 8], float32[16, 16, 3, 3], float32[1, 16, 1, 1], float32[1, 16, 8, 8]", 142.25),
        ("reshape1", "float32[1, 16, 8, 8], float32[1, 1024]", 2.0),
        ("transpose", "float32[10, 1024], float32[1024, 10]", 9.75),
        ("fused_matmul_add1", "float32[1, 1024], float32[1024, 10], float32[10], float32[1, 10]", 12.5),
    ]
    body = ",".join('{"Name":{"string":"%s"},"Duration (us)":{"microseconds":%.17f},"Count":{"count":1},'
                    '"Device":{"string":"cpu0"},"Argument Shapes":{"string":"%s"}}' % (n, t, a) for n, a, t in calls)
    path.write_text('{"calls":[%s],"device_metrics":{},"configuration":{"Executor":{"string":"VM"}}}' % body)
    return path


def test_relax_script_forms():
    _, high = parse(DATA / "relax/small_convnet.relax.py")
    convs = [c for c in high.ir_calls if c.op_name == "nn.conv2d"]
    assert [c.workload_key for c in convs] == [
        "conv2d float32 d=1x3x8x8 w=16x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x16x8x8 w=16x16x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"]
    assert next(c for c in high.ir_calls if c.op_name == "matmul").workload_key == "dense float32 d=1x1024 w=10x1024"
    _, fused = parse(DATA / "relax/small_convnet.fused.relax.py")
    call = next(c for c in fused.ir_calls if c.primfunc == "fused_conv2d_add_relu")
    assert call.op_family == "conv2d" and call.result_shapes == [[1, 16, 8, 8]]
    assert call.args_flat == "1,3,8,8,16,3,3,3,1,16,1,1,1,16,8,8"
    assert [c.primfunc for c in fused.ir_calls].count("reshape") == 2


def test_metaschedule_database_folder():
    name, parsed = parse(DATA / "ms-database/small_convnet")
    assert name == "ms-database"
    lines = (DATA / "ms-database/small_convnet/database_workload.json").read_text().splitlines()
    records = (DATA / "ms-database/small_convnet/database_tuning_record.json").read_text().splitlines()
    assert len(parsed.tasks) == len(lines) and len(parsed.records) == len(records)
    task = parsed.tasks[0]
    assert task.task_name == json.loads(lines[0])[0] == task.structural_hash
    assert task.op_family == "conv2d" and task.variant == "conv2d_nchw"
    assert json.loads(task.task_args)[1] == ["TENSOR", [16, 3, 3, 3], "float32"]
    first = json.loads(records[0])[1]
    assert parsed.records[0].costs_s == first[1] and json.loads(task.target)["kind"] == "llvm"


def test_relax_profile_matches_metaschedule_tasks_by_argument_shapes(cli, tmp_path):
    report = relax_vm_report(tmp_path / "small_convnet.report.json")
    result = cli("ingest", report, DATA / "relax/small_convnet.fused.relax.py", DATA / "ms-database/small_convnet",
                 "--model", "small_convnet")
    assert result.code == 0, result.err
    matches = {m["func_name"]: m for m in cli("matches", "-f", "json").json()}
    tuned = matches["fused_conv2d_add_relu"]
    assert tuned["method"] == "workload" and tuned["task_name"] == "7460716542787474096"
    other = matches["fused_conv2d1_add_relu"]
    assert other["method"] == "workload" and other["task_name"] is None  # in the IR, not in the database
    assert matches["vm.builtin.check_tensor_info"]["reason"] == "not tunable: vm_builtin"
    assert matches["reshape"]["method"] == "unmatched"
    tasks = cli("tasks", "--model", "small_convnet", "-f", "json").json()
    assert tasks[0]["tuner"] == "meta_schedule" and tasks[0]["records"] == 4
    assert tasks[0]["best_cost_us"] == pytest.approx(min(
        json.loads(l)[1][1][0] for l in (DATA / "ms-database/small_convnet/database_tuning_record.json").read_text().splitlines()) * 1e6)


def test_tasks_command_one_row_per_task_and_target(cli, vgg16):
    cli("ingest", vgg16["tasks"], vgg16["log"], "--model", "vgg16")
    rows = cli("tasks", "-f", "json").json()
    assert len(rows) == 15 and all(r["target"] == "llvm -mcpu=skylake-avx512" for r in rows)
    records = [json.loads(l) for l in vgg16["log"].read_text().splitlines()]
    first = rows[0]
    mine = [r for r in records if r["input"][1] == first["task_name"] and r["input"][2] == first["task_args"]]
    assert first["records"] == len(mine)
    assert first["best_cost_us"] == pytest.approx(min(sum(r["result"][0]) / len(r["result"][0]) for r in mine if r["result"][1] == 0) * 1e6)
    assert set(first) >= {"task_name", "task_args", "workload", "best_cost_us"}


def test_fused_relay_links_closure_calls_to_their_ops():
    _, parsed = parse(DATA / "relay/fused_small.relay.txt")
    convs = [c for c in parsed.ir_calls if c.op_name == "nn.conv2d"]
    assert [c.function_name for c in convs] == ["main/%2", "main/%6"]
    assert convs[1].workload_key == "conv2d float32 d=1x16x32x32 w=16x16x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    closure_calls = [c for c in parsed.ir_calls if c.primfunc]
    assert [c.primfunc for c in closure_calls] == ["main/%2", "main/%6"]
    assert closure_calls[0].arg_kinds == ["var", "constant", "constant"]
    assert closure_calls[0].result_shapes == [[1, 16, 32, 32]]


def test_byoc_partitions_are_external_and_never_candidates(cli, tmp_path):
    path = sample("relay_text_resnet50_byoc_partitioned_first125.txt")
    _, parsed = parse(path)
    inside = [c for c in parsed.ir_calls if c.function_name.startswith("tvmgen_default_cutlass_main")]
    assert inside and all(c.compiler == "cutlass" for c in inside)
    calls = [c for c in parsed.ir_calls if c.op_name.startswith("@tvmgen_default_cutlass")]
    assert calls[0].compiler == "cutlass"  # the partition is defined after main calls it
    assert all(c.compiler is None for c in parsed.ir_calls if c.op_name == "nn.max_pool2d")
    assert cli("ingest", path, "--model", "byoc").code == 0
    convs = cli("sql", "SELECT count(*) AS n FROM ir_calls WHERE op_family = 'conv2d' AND compiler IS NULL", "-f", "json").json()
    assert convs[0]["n"] == 0


def test_lenient_task_listing():
    name, parsed = parse(DATA / "autotvm-tasks/listing.txt")
    assert name == "autotvm-tasks" and len(parsed.tasks) == 4
    assert parsed.tasks[0].workload_key == "conv2d float32 d=1x3x224x224 w=64x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
    assert parsed.tasks[3].workload_key == "dense float32 d=1x4096 w=1000x4096"
    dense = parsed.tasks[2]  # tensors only: kept, and its shapes are enough for dense
    assert json.loads(dense.task_args)[1] == ["TENSOR", [4096, 25088], "float32"]
    assert dense.workload_key == "dense float32 d=1x25088 w=4096x25088"
    # the heading is part of a listing; the closing "Done." is not a task, and is said once
    assert not any("Extracted 4 tasks" in w for w in parsed.warnings)
    assert any("1 lines are not tasks and were skipped (lines 6)" in w for w in parsed.warnings)


MALFORMED = {
    "graph.json": ('{"nodes": [{"op": "tvm_op", "name": "k", "attrs": {"func_name": "k"}, "inputs": [[5, 0, 0]]}], '
                   '"arg_nodes": [], "attrs": {"shape": ["list_shape", [[1, 2]]]}, "node_row_ptr": [0, 1]}', "shape list"),
    "v01.log": ('{"i": ["llvm", "topi_nn_conv2d", [["TENSOR", [1, 3, 8, 8], "float32"]], {}, "not a list", {}], "r": [[1e-3], 0, 1.0, 1], "v": 0.1}\n',
                "expected i = [target"),
    "bad.relax.py": ('@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):\n'
                     '        lv: R.Tensor((1, 3), dtype="float32") = R.nn.relu(x\n', "bad.relax.py:5"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_issue3_formats(cli, db, tmp_path, vgg16, name):
    cli("ingest", vgg16["table"], "--model", "m")
    before = table_counts(db)
    text, message = MALFORMED[name]
    path = tmp_path / name
    path.write_text(text)
    result = cli("ingest", path, "--model", "m")
    assert result.code == 1 and message in result.err.replace("\n", ""), result.err
    assert "Traceback" not in result.err and table_counts(db) == before


def test_malformed_metaschedule_database(cli, db, tmp_path, vgg16):
    cli("ingest", vgg16["table"], "--model", "m")
    before = table_counts(db)
    folder = tmp_path / "db"
    folder.mkdir()
    src = DATA / "ms-database/small_convnet"
    (folder / "database_workload.json").write_text((src / "database_workload.json").read_text())
    (folder / "database_tuning_record.json").write_text('[7, [[], [1e-5], null, null]]\n')
    result = cli("ingest", folder, "--model", "m")
    assert result.code == 1 and "database_tuning_record.json:1" in result.err and "workload index 7" in result.err
    assert table_counts(db) == before


# -- logs and tables of older runtimes ------------------------------------------------
def test_debug_runtime_log_lines_of_both_eras_give_one_profile(cli, tmp_path):
    old = cli("--db", tmp_path / "old.duckdb", "ingest", DATA / "debug-log/vgg16.runtime07.log", "--model", "m", use_db=False)
    new = cli("--db", tmp_path / "new.duckdb", "ingest", DATA / "debug-log/vgg16.executor08.log", "--model", "m", use_db=False)
    assert "as debug-log (profile): 26 rows" in old.out and "as debug-log (profile): 26 rows" in new.out
    query = "SELECT node_name, round(time_us, 3) AS t FROM nodes ORDER BY node_index"
    old_nodes = cli("--db", tmp_path / "old.duckdb", "sql", query, "-f", "json", use_db=False).json()
    new_nodes = cli("--db", tmp_path / "new.duckdb", "sql", query, "-f", "json", use_db=False).json()
    assert [n["t"] for n in old_nodes] == [n["t"] for n in new_nodes]
    assert [("tvmgen_default_" + n["node_name"]) for n in old_nodes] == [n["node_name"] for n in new_nodes]
    samples = cli("--db", tmp_path / "old.duckdb", "sql", "SELECT count(*) AS n FROM node_samples", "-f", "json",
                  use_db=False).json()
    assert samples == [{"n": 78}]  # 26 nodes x 3 repeats


def test_debug_runtime_log_takes_shapes_from_a_graph_json(cli):
    cli("ingest", DATA / "debug-log/vgg16.executor08.log", DATA / "graph-json/vgg16.graph.json",
        DATA / "thread/vgg16.relay.txt", "--model", "m")
    matched = [m for m in cli("matches", "-f", "json").json() if m["method"] == "workload"]
    # every node whose name is its kernel's symbol gets the graph's input shapes (TVM <= 0.9
    # names a repeated call site `func1`: those stay unmatched, said so in docs/formats.md)
    assert len(matched) == 12


def test_vm_profiler_table_with_shapes_matches_by_input_shapes(cli):
    result = cli("ingest", DATA / "vm-stat/vgg16.shapes.vm_stat.txt", DATA / "thread/vgg16.relay.txt",
                 DATA / "thread/vgg16.kernels.txt", "--model", "m")
    assert "as vm-stat (profile): 22 rows" in result.out
    kernels = {m["func_name"]: m for m in cli("matches", "-f", "json").json()}
    conv = kernels["vm_mod_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1"]
    assert conv["method"] == "workload" and conv["task_name"] == "conv2d_NCHWc.x86"
    calls = cli("sql", "SELECT calls FROM nodes WHERE func_name = 'vm_mod_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1'",
                "-f", "json").json()
    assert calls == [{"calls": 20}]  # two call sites over 10 inferences
    plain = cli("--db", DATA.parent / "unused.duckdb", "formats", "-f", "json", use_db=False).json()
    assert {"vm-stat", "debug-log", "ansor-tasks"} <= {f["format"] for f in plain}
