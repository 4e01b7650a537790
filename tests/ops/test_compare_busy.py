"""A capture taken beside busy processes says so, and is judged with the most its load can
have slowed it allowed for: the CPUs it shared slow every kernel alike, which neither its
samples show nor the noise of quieter runs (bench/compare_noise.py measured a doubled
kernel called 1.9x slower), but a change beyond what the load can do is still told."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hotdb.capture.profile import OthersCpu

needs_proc = pytest.mark.skipif(not Path("/proc/stat").exists(), reason="the CPU's use is read from /proc/stat")

SPIN = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end: pass\nprint(time.process_time())"


def _hogs(count: int, seconds: float) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", SPIN.format(s=seconds)], stdout=subprocess.PIPE, text=True)
            for _ in range(count)]


@needs_proc
def test_others_cpu_counts_what_another_process_used():
    """At least the CPU time the spinning child reports for itself (more on a busy machine)."""
    busy = OthersCpu()
    start = time.monotonic()
    (hog,) = _hogs(1, 1.0)
    child_cpu_s = float(hog.communicate()[0])
    wall_s = time.monotonic() - start
    measured = busy.pct()
    assert measured is not None
    assert measured >= 0.8 * 100 * child_cpu_s / (wall_s * os.cpu_count())


@pytest.mark.slow
@needs_proc
def _busy(run):
    """`run()` beside a spinning process on every CPU."""
    hogs = _hogs(os.cpu_count() or 1, 600)
    try:
        return run()
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.slow
@needs_proc
def test_a_capture_beside_busy_processes_tells_no_change_within_what_the_load_can_do(cli):
    """The same model, one capture a side, one taken beside a busy process on every CPU:
    the capture says so with its figure, `runs` and `top` mark it, no kernel is told
    faster or slower (the load can explain each), each says which run was busy and what to
    do, and the gate refuses."""
    assert cli("profile", "mlp", "--repeat", "3", "--run", "quiet").code == 0
    busy = _busy(lambda: cli("profile", "mlp", "--repeat", "3", "--run", "busy"))
    assert busy.code == 0, busy.err
    said = " ".join(busy.err.split())
    assert "run busy was captured while other processes used" in said and "a quiet machine's" in said
    runs = {r["run"]: r for r in cli("runs", "-f", "json").json()}
    assert runs["busy"]["busy"] is True  # (the other is busy too where the machine is)
    assert "busy: captured while other processes shared the CPUs" in " ".join(cli("runs").out.split())
    assert "run busy was captured while other processes used" in " ".join(cli("top", "--run", "busy").out.split())
    runs = {r["label"]: r for r in cli("sql", "SELECT label, others_cpu_pct FROM runs", "-f", "json").json()}
    assert runs["busy"]["others_cpu_pct"] > 10  # one spinning process per CPU: about half of them
    rows = cli("compare", "quiet", "busy", "--by", "kernel", "-f", "json").json()
    kernels = [r for r in rows if r["item"].startswith("kernel fused_")]
    assert kernels and {r["verdict"] for r in kernels} == {"can't tell"}
    assert all("run busy" in r["reason"] and "captured beside busy processes" in r["reason"]
               and "--replicates 3" in r["reason"] for r in kernels)
    gate = cli("compare", "quiet", "busy", "--by", "kernel", "--fail-on-regression", "5")
    assert gate.code == 1 and "tested nothing" in gate.err and "captured beside busy processes" in gate.err


WIDE = """
from tvm.relax.frontend import nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = nn.Linear(256, 256)
        self.last = nn.Linear(256, width)

    def forward(self, x):
        return self.last(nn.relu(self.first(x)))


def build(width):
    return Net(width).export_tvm({"forward": {"x": nn.spec.Tensor((64, 256), "float32")}})


def narrow():
    return build(32)


def wide():
    return build(4096)
"""


@pytest.mark.slow
@needs_proc
def test_a_change_beyond_what_the_load_can_do_is_told_with_the_load_allowed_for(cli, tmp_path):
    """A kernel 128x larger (the last layer 32 -> 4096 columns: a tune's speed-up, read the
    other way), one side captured beside a busy process on every CPU: a load can slow a
    kernel 10x at the most as hotdb bounds it (the other side may be busy too, where the
    machine is), not 128x, so the change is told, with its interval widened by the load and
    the reason saying so."""
    model = tmp_path / "wide.py"
    model.write_text(WIDE)
    assert cli("profile", f"{model}:narrow", "--repeat", "3", "--run", "narrow", "--model", "net").code == 0
    wide = _busy(lambda: cli("profile", f"{model}:wide", "--repeat", "3", "--run", "wide", "--model", "net"))
    assert wide.code == 0, wide.err
    rows = {r["item"]: r for r in cli("compare", "narrow", "wide", "--by", "kernel", "-f", "json").json()}
    last = next(r for item, r in rows.items() if item.startswith("kernel fused_matmul1"))
    assert last["verdict"] == "slower" and last["ratio"] > 10, last
    assert 1 < last["ratio_low"] < last["ratio"] / 1.5  # widened by the load's bound (1.5x and more: busy beside hogs)
    assert "run wide" in last["reason"] and "told beyond the" in last["reason"]
    back = {r["item"]: r for r in cli("compare", "wide", "narrow", "--by", "kernel", "-f", "json").json()}
    assert back[next(i for i in back if i.startswith("kernel fused_matmul1"))]["verdict"] == "faster"

