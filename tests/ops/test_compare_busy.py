"""A capture taken beside busy processes says so, and one such capture is never judged alone:
the CPUs it shared slow every kernel alike, which neither its samples show nor the noise of
quieter runs (bench/compare_noise.py measured a doubled kernel called 1.9x slower)."""

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
def test_a_capture_beside_busy_processes_is_not_judged_alone(cli):
    """One capture a side, one taken beside a busy process on every CPU: no kernel is told
    faster or slower, each says which run was busy and what to do, and the gate refuses."""
    assert cli("profile", "mlp", "--repeat", "3", "--run", "quiet").code == 0
    hogs = _hogs(os.cpu_count() or 1, 600)
    try:
        busy = cli("profile", "mlp", "--repeat", "3", "--run", "busy")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert busy.code == 0, busy.err
    runs = {r["label"]: r for r in cli("sql", "SELECT label, others_cpu_pct FROM runs", "-f", "json").json()}
    assert runs["busy"]["others_cpu_pct"] > 10  # one spinning process per CPU: about half of them
    rows = cli("compare", "quiet", "busy", "--by", "kernel", "-f", "json").json()
    kernels = [r for r in rows if r["item"].startswith("kernel fused_")]
    assert kernels and {r["verdict"] for r in kernels} == {"can't tell"}
    assert all("captured while other processes used" in r["reason"] and "--replicates 3" in r["reason"]
               for r in kernels)
    gate = cli("compare", "quiet", "busy", "--by", "kernel", "--fail-on-regression", "5")
    assert gate.code == 1 and "tested nothing" in gate.err and "other processes used" in gate.err
