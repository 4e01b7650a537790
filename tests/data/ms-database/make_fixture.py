"""Make real MetaSchedule and Relax fixtures with apache-tvm (0.27, CPU, llvm).

A small conv net (conv2d 3x3 + bias + relu, twice, then dense) is built with
tvm.relax.frontend.nn, legalized and fused (LegalizeOps, FuseOps, FuseTIR); its Relax TVMScript is
written as tests/data/relax/small_convnet.relax.py (both before legalization, with
R.nn.conv2d calls, and after fusion, with R.call_tir to fused PrimFuncs), its
MetaSchedule tasks are extracted and the hottest conv task is tuned for a few trials
into tests/data/ms-database/small_convnet/ (database_workload.json,
database_tuning_record.json).

    python tests/data/ms-database/make_fixture.py      # about a minute on 2 cores
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import tvm
from tvm import relax
from tvm.relax.frontend import nn
from tvm.s_tir import meta_schedule as ms

HERE = Path(__file__).resolve().parent
TARGET = tvm.target.Target({"kind": "llvm", "num-cores": 2})


class SmallConvNet(nn.Module):
    def __init__(self):
        self.conv1 = nn.Conv2D(3, 16, 3, padding=1, bias=True)
        self.conv2 = nn.Conv2D(16, 16, 3, padding=1, bias=True)
        self.fc = nn.Linear(16 * 8 * 8, 10)

    def forward(self, x):
        x = nn.relu(self.conv1(x))
        x = nn.relu(self.conv2(x))
        x = x.reshape(1, 16 * 8 * 8)
        return self.fc(x)


def main() -> None:
    mod, _ = SmallConvNet().export_tvm({"forward": {"x": nn.spec.Tensor((1, 3, 8, 8), "float32")}})
    relax_dir = HERE.parent / "relax"
    relax_dir.mkdir(exist_ok=True)
    (relax_dir / "small_convnet.relax.py").write_text(mod.script())
    # legalize and fuse, stopping before VM lowering, so that the script shows R.call_tir
    fuse = tvm.transform.Sequential([relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
                                     relax.transform.FoldConstant(), relax.transform.FuseOps(),
                                     relax.transform.FuseTIR()])
    with TARGET:
        fused = fuse(mod)
    (relax_dir / "small_convnet.fused.relax.py").write_text(fused.script())
    tasks = ms.relax_integration.extract_tasks(fused, TARGET)
    conv = [t for t in tasks if t.task_name == "fused_conv2d_add_relu"]
    out = HERE / "small_convnet"
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as work:
        contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(conv[:1], work, num_threads=2)
        ms.tune_tasks(
            tasks=contexts, task_weights=weights, work_dir=work, max_trials_global=4, max_trials_per_task=4,
            num_trials_per_iter=4, builder=ms.builder.LocalBuilder(max_workers=2),
            runner=ms.runner.LocalRunner(), cost_model="random")
        out.mkdir()
        for name in ("database_workload.json", "database_tuning_record.json"):
            shutil.copy(Path(work) / name, out / name)
    for t in tasks:
        print(t.task_name, t.weight)


if __name__ == "__main__":
    main()
