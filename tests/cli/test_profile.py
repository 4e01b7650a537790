"""Live capture with apache-tvm on the CPU (slow: each compiles and times a model)."""

from __future__ import annotations

import statistics

import pytest

from hotdb.errors import UsageError

pytestmark = pytest.mark.slow

CONV_MODEL = '''
from tvm.relax.frontend import nn
import numpy as np


class Net(nn.Module):
    def __init__(self):
        self.conv1 = nn.Conv2D(3, 16, 3, stride=1, padding=1)
        self.conv2 = nn.Conv2D(16, 32, 3, stride=2, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = nn.relu(self.conv2(nn.relu(self.conv1(x))))
        return self.fc(x.reshape(1, 32 * 8 * 8))


def build():
    mod, params = Net().export_tvm({"forward": {"x": nn.spec.Tensor((1, 3, 16, 16), "float32")}})
    rng = np.random.default_rng(0)
    return mod, {name: rng.standard_normal([int(d) for d in p.shape]).astype("float32") for name, p in params}


def exported():
    return Net().export_tvm({"forward": {"x": nn.spec.Tensor((1, 3, 16, 16), "float32")}})  # as it comes
'''


def check_capture(cli, run):
    """The properties every capture must have, read back through the CLI."""
    kernels = cli("sql", f"""
        SELECT n.node_index, n.func_name, n.is_kernel, m.method, m.workload_key, m.confidence
        FROM nodes AS n JOIN runs AS r USING (run_id) JOIN kernel_matches AS m USING (run_id, func_name)
        WHERE r.label = '{run}' ORDER BY n.node_index""", "-f", "json").json()
    tasks = cli("sql", f"""
        SELECT t.task_name, t.weight FROM model_tasks AS t JOIN runs AS r USING (model_id) WHERE r.label = '{run}'
        ORDER BY t.task_name""", "-f", "json").json()
    called = [k for k in kernels if k["is_kernel"]]
    assert called, "no kernel calls recorded"
    weights = {t["task_name"]: t["weight"] for t in tasks}
    assert all(w >= 1 for w in weights.values())
    # every kernel call is a task, as often as MetaSchedule counted it (reshape tasks become views)
    for name, weight in weights.items():
        calls = sum(1 for k in called if k["func_name"] == name)
        assert calls == weight or (calls == 0 and name.startswith("reshape")), (name, calls, weight)
    assert all(k["method"] == "name" and k["confidence"] == 1.0 for k in called)
    run_row = cli("sql", f"SELECT end_to_end_us, timing_method, ir_sha256, cpu_cores, tvm_version, target, capture_s, "
                         f"_quiet_run(others_cpu_pct) AS quiet FROM runs WHERE label = '{run}'", "-f", "json").json()[0]
    kernel_total = cli("sql", f"SELECT sum(time_us) AS t FROM nodes JOIN runs USING (run_id) WHERE label = '{run}' AND is_kernel",
                       "-f", "json").json()[0]["t"]
    end_to_end = statistics.median(run_row["end_to_end_us"])
    # fidelity: kernels add up to the model. For a model of a few hundred microseconds the
    # VM's fixed costs and the machine's noise are tens of microseconds: the MLP (3 kernel
    # calls, 0.3 ms) once measured 246 us of kernels against 314 us end to end during the
    # full suite; such models are checked to 30 us per kernel call instead. A capture beside
    # busy processes (hotdb's own rule, queries/_quiet_run.sql) measures the machine, not the
    # model: hotdb leaves it out of comparisons, and so does this check
    if run_row["quiet"]:
        assert abs(kernel_total - end_to_end) <= max(0.15 * end_to_end, 30.0 * len(called)), (kernel_total, end_to_end)
    assert run_row["ir_sha256"] and run_row["cpu_cores"] >= 1 and run_row["tvm_version"].startswith("0.")
    # the capture's seconds (a tune keeps them for its re-profile): at least its timed samples
    assert run_row["capture_s"] > sum(run_row["end_to_end_us"]) / 1e6
    weights = cli("sql", f"SELECT task_name, static_weight, measured_calls, share_pct FROM task_weights "
                         f"JOIN runs USING (run_id) WHERE label = '{run}'", "-f", "json").json()
    assert weights and all(w["static_weight"] == w["measured_calls"] for w in weights)
    assert sum(w["share_pct"] for w in weights) == pytest.approx(100.0 * kernel_total / (kernel_total + max(0.0, end_to_end - kernel_total)), rel=1e-6)
    return kernels, tasks


def test_profile_zoo_model_twice(cli):
    first = cli("profile", "mlp", "--repeat", "3")
    assert first.code == 0, first.err
    assert "top by task" in first.out and "fused_matmul_add_relu" in first.out
    second = cli("profile", "mlp", "--repeat", "3", "--run", "again")
    assert second.code == 0 and "already ingested" in second.err  # same IR and tasks: stored once
    k1, t1 = check_capture(cli, "mlp-1")
    k2, t2 = check_capture(cli, "again")
    assert t1 == t2
    assert [(k["func_name"], k["workload_key"]) for k in k1 if k["is_kernel"]] == \
           [(k["func_name"], k["workload_key"]) for k in k2 if k["is_kernel"]]
    assert len(cli("runs", "-f", "json").json()) == 2
    samples = cli("sql", "SELECT count(*) AS n FROM node_samples JOIN runs USING (run_id) WHERE label = 'again'", "-f", "json").json()
    assert samples[0]["n"] == 3 * sum(1 for k in k2 if k["is_kernel"])


def test_profile_python_function_with_convolutions(cli, tmp_path):
    path = tmp_path / "net.py"
    path.write_text(CONV_MODEL)
    result = cli("profile", f"{path}:build", "--repeat", "3", "--tag", "case=py")  # its one function: forward
    assert result.code == 0, result.err
    kernels, _ = check_capture(cli, "net-1")  # named for the file, as docs/commands.md says
    convs = {k["workload_key"] for k in kernels if k["is_kernel"] and (k["workload_key"] or "").startswith("conv2d")}
    # the workload inferred from the task's shapes equals the IR's own conv2d attributes
    assert convs == {"conv2d float32 d=1x3x16x16 w=16x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
                     "conv2d float32 d=1x16x16x16 w=32x16x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1"}
    ir = cli("sql", "SELECT DISTINCT workload_key FROM ir_calls WHERE op_name = 'nn.conv2d'", "-f", "json").json()
    assert {r["workload_key"] for r in ir} == convs
    # the same function with another IR is not the same model: it is kept apart, and said so
    path.write_text(CONV_MODEL.replace("nn.Conv2D(16, 32, 3, stride=2", "nn.Conv2D(16, 32, 3, stride=1")
                    .replace("32 * 8 * 8", "32 * 16 * 16"))
    changed = cli("profile", f"{path}:build", "--repeat", "2")
    assert changed.code == 0, changed.err
    assert "holds captures of another IR" in changed.err
    models = sorted(m["model"] for m in cli("models", "-f", "json").json())
    assert len(models) == 2 and models[0] == "net" and models[1].startswith("net@")
    compared = cli("compare", "net-1", f"{models[1]}-1", "--fail-on-regression", "5")
    assert compared.code == 1 and "different IR" in compared.err and "--allow-different-builds" in compared.err
    # what nn.Module.export_tvm() returns, as it comes: (IRModule, [(name, Parameter)]), weights unset
    as_exported = cli("profile", f"{path}:exported", "--repeat", "1", "-f", "json")
    assert as_exported.code == 0, as_exported.err
    assert any(t["task_name"].startswith("fused_conv2d") for t in as_exported.json())  # stdout: only the data


def test_profile_an_irmodule_from_python(db, tmp_path):
    """Hotdb.profile takes the module itself, as a notebook holds it: named as asked."""
    import importlib.util

    from hotdb import Hotdb

    path = tmp_path / "net.py"
    path.write_text(CONV_MODEL)
    spec = importlib.util.spec_from_file_location("net_for_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loaded = Hotdb(db).profile(module.build(), name="mine", repeat=1)
    assert loaded.model == "mine" and loaded.run_label == "mine-1"
    tasks = Hotdb(db).top(by="task", run="mine-1").records()
    assert any(t["task_name"].startswith("fused_conv2d") for t in tasks)
    with pytest.raises(UsageError, match="file.py:function"):
        Hotdb(db).profile(module.build(), replicates=2)


def test_profile_onnx_model(cli, tmp_path):
    onnx = pytest.importorskip("onnx")
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    weight = numpy_helper.from_array(rng.standard_normal((16, 3, 3, 3)).astype("float32"), "w")
    fc = numpy_helper.from_array(rng.standard_normal((16 * 64 * 64, 4)).astype("float32"), "fc")
    shape = numpy_helper.from_array(np.array([1, 16 * 64 * 64], dtype="int64"), "shape")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("Reshape", ["r", "shape"], ["f"]), helper.make_node("MatMul", ["f", "fc"], ["y"])],
        "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 64, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [weight, fc, shape])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "small.onnx"
    onnx.save(model, str(path))
    result = cli("profile", path, "--repeat", "3")
    assert result.code == 0, result.err
    check_capture(cli, "small-1")


@pytest.mark.parametrize("spec, message", [
    ("no_such_zoo_model", "unknown model"),
    ("missing.onnx", "no such ONNX file"),
    ("missing.py:build", "no such Python file"),
])
def test_profile_bad_models(cli, spec, message):
    result = cli("profile", spec)
    assert result.code == 1 and message in result.err and "Traceback" not in result.err


def test_missing_device_is_a_clear_error(cli):
    result = cli("profile", "mlp", "--target", "cuda")
    assert result.code == 1 and "no cuda device" in result.err and "Traceback" not in result.err
    bad = cli("profile", "mlp", "--target", "{not json")
    assert bad.code == 1 and "--target" in bad.err


# dense layers, and depthwise and pointwise convolutions with shared workloads: the other
# zoo models passed when this test was written (2 min for all six) and are left out of CI
# for its time (vgg16 alone compiles for 75 s)
@pytest.mark.parametrize("model", ["mlp", "mobilenet_v2"])
def test_exported_shares_add_up_on_every_zoo_model(cli, model):
    """Every MetaSchedule task keeps its own time: tasks that share a workload are rows of
    their own, and what `export` gives a tuner sums to at most the run's tunable time."""
    assert cli("profile", model, "--repeat", "1", "--warmup", "0").code == 0
    export = cli("export", "--to", "metaschedule", "--coverage", "100").json()
    exported = export["tasks"]
    assert export["op_names"] == [r["task_name"] for r in exported]  # each selected task, by its extracted name
    for name, others in export["also_selects"].items():  # MetaSchedule's op_names match by substring
        assert all(name in other and other not in export["op_names"] for other in others)
    assert sum(r["share_pct"] for r in exported) <= 100.0 + 1e-6
    tunable = cli("sql", "SELECT tunable_time_us, total_time_us FROM run_totals", "-f", "json").json()[0]
    assert sum(r["time_us"] for r in exported) <= tunable["tunable_time_us"] * (1 + 1e-9)
    assert len({r["task_name"] for r in exported}) == len(exported)
    top = cli("top", "--coverage", "90", "-f", "json").json()
    assert top[-1]["cumulative_pct"] >= 90.0  # reachable: shares are of what tasks can act on
    shared = [r for r in cli("top", "-f", "json").json() if r["workload_tasks"]]
    if model == "resnet18":  # conv+add+relu and conv+add+add+relu of one convolution: two tasks
        assert shared
    for row in shared:  # a workload two tasks share lists both, each with its own share
        assert any(entry.startswith(row["task_name"] + " (") for entry in row["workload_tasks"])
