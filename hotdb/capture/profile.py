"""Live capture with apache-tvm: compile a model, time every kernel call of the Relax VM,
extract its MetaSchedule tasks, and return the same typed rows an ingestor returns.

Timing method (chosen for accuracy; see bench/README.md for the comparison):

1. one instrumented run records the VM's call sequence: every kernel symbol with its
   argument shapes and dtypes, and the VM builtins around them;
2. every distinct (symbol, argument shapes) is timed on its own with the runtime's
   `time_evaluator` on fresh tensors (`repeat` samples after `warmup` runs, each sample
   averaging enough calls to last `min_repeat_ms`): this excludes the ~2 us the
   Python instrument callback adds to every call;
3. the whole model is timed with the VM's own `time_evaluator` (no instrument), so the
   sum of kernel medians can be checked against the end-to-end median.

VM builtins (alloc, reshape views, shape checks) are recorded as non-kernel nodes of
time 0 (what the instrumented run measures for them is mostly the callback itself); the
end-to-end median minus the sum of kernel medians, when positive, is one non-kernel node
`vm.overhead`, so that a run's total is the model's measured time.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import time
from dataclasses import dataclass, field
from typing import Callable

from hotdb.errors import UsageError
from hotdb.rows import NodeRow, Parsed, RunInfo, SampleRow
from hotdb.rows.derive import derive
from hotdb.version import __version__
from hotdb.workload.targets import canonical as canonical_target

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class Capture:
    model: str
    profile: Parsed
    tasks: Parsed
    ir_script: str
    run_meta: dict = field(default_factory=dict)
    #: sum over kernel calls of what the instrument callback measured (the baseline method)
    instrumented_kernel_us: float = 0.0


def parse_target(text: str | None):
    """A tvm Target from a short name (`llvm`, `cuda`) or a JSON dict; llvm gets the
    host's core count, which MetaSchedule needs."""
    import tvm

    cores = os.cpu_count() or 1
    if not text or text == "llvm":
        spec = {"kind": "llvm", "num-cores": cores}
    elif text.strip().startswith("{"):
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--target: not valid JSON: {exc.msg}") from None
    elif text in ("cuda", "rocm", "metal", "vulkan", "opencl"):
        spec = {"kind": text, "host": {"kind": "llvm"}}
    else:
        raise UsageError(f"--target {text!r}: use a short name (llvm, cuda, ...) or a JSON dict such as "
                         '\'{"kind": "llvm", "num-cores": 2}\'')
    if spec.get("kind") == "llvm":
        spec.setdefault("num-cores", cores)
    if spec.get("kind") == "cuda":
        spec = {**_cuda_limits(), **spec}
    try:
        return tvm.target.Target(spec)
    except Exception as exc:
        raise UsageError(f"--target {text!r}: TVM rejects it: {exc}") from None


def _cuda_limits() -> dict:
    """What MetaSchedule needs a CUDA target to say (it refuses one without
    max_threads_per_block): the GPU's own figures where there is one, else those of every
    NVIDIA GPU since Kepler."""
    import tvm

    device = tvm.cuda(0)
    if device.exist:
        return {"max_threads_per_block": device.max_threads_per_block,
                "max_shared_memory_per_block": device.max_shared_memory_per_block}
    return {"max_threads_per_block": 1024, "max_shared_memory_per_block": 49152}


def device_for(target):
    import tvm

    kind = target.kind.name
    dev = tvm.device(kind if kind != "llvm" else "cpu", 0)
    if not dev.exist:
        raise UsageError(f"target {kind}: no {kind} device on this machine")
    return dev


FUSE_PASSES = ("LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR")


def fuse(mod, target):
    """Legalize and fuse, stopping before VM lowering: the module tasks are extracted
    from and compiled from, so that kernel and task names agree."""
    import tvm
    from tvm import relax

    seq = tvm.transform.Sequential([getattr(relax.transform, name)() for name in FUSE_PASSES])
    with target:
        return seq(mod)


def capture(loaded, target, *, repeat: int = 5, warmup: int = 1, min_repeat_ms: int = 20,
            progress: Progress | None = None, apply=None) -> Capture:
    """Capture one run. `apply(fused_module) -> module` changes what is compiled (hotdb
    tune applies its tuning database there); tasks always come from the fused module."""
    import numpy as np
    import tvm
    from tvm import relax

    from hotdb.capture.models import input_arrays
    from hotdb.capture.tasks import task_rows

    started = time.monotonic()
    progress = progress or (lambda stage, done, total: None)
    dev = device_for(target)
    progress("compile", 0, 1)
    fused = fuse(loaded.mod, target)
    tasks = task_rows(fused, target)
    compiled = apply(fused) if apply is not None else fused
    executable = tvm.compile(compiled, target=target, relax_pipeline=relax.get_default_pipeline(target))
    vm = relax.VirtualMachine(executable, dev)
    progress("compile", 1, 1)
    inputs = [tvm.runtime.tensor(a, dev) for a in input_arrays(loaded.mod, loaded.entry)]

    for i in range(warmup):
        progress("warm-up", i, warmup)
        vm[loaded.entry](*inputs)
    progress("warm-up", warmup, warmup)

    sequence = _record_calls(vm, loaded.entry, inputs, dev)
    kernels = executable.mod.imports[0]
    signatures = sorted({(c["symbol"], c["shapes"], c["dtypes"]) for c in sequence if c["kernel"]})
    # Samples are rounds: each round times every kernel once, on tensors of its own. Two
    # captures of one build differ by up to ~10 % in a kernel (where its buffers fall, what
    # else the machine does); back-to-back repeats on one allocation would hide that from
    # the significance test, rounds spread over the capture and its allocations show it.
    busy = OthersCpu()
    samples: dict[tuple, list[float]] = {key: [] for key in signatures}
    timers = {key: kernels.time_evaluator(key[0], dev, number=1, repeat=1, min_repeat_ms=min_repeat_ms)
              for key in signatures}
    for round_index in range(repeat):
        progress("kernels", round_index * len(signatures), repeat * len(signatures))
        for key in signatures:
            args = [tvm.runtime.tensor(np.zeros(s, dtype=d), dev) for s, d in zip(key[1], key[2])]
            samples[key].append(timers[key](*args).results[0] * 1e6)
    progress("kernels", repeat * len(signatures), repeat * len(signatures))

    progress("end-to-end", 0, 1)
    fresh = relax.VirtualMachine(executable, dev)  # no instrument: nothing added per call
    whole = fresh.time_evaluator(loaded.entry, dev, number=1, repeat=repeat, min_repeat_ms=min_repeat_ms)
    end_to_end = [t * 1e6 for t in whole(*inputs).results]
    others_cpu_pct = busy.pct()
    progress("end-to-end", 1, 1)

    kernel_total = sum(float(np.median(samples[(c["symbol"], c["shapes"], c["dtypes"])]))
                       for c in sequence if c["kernel"])
    profile = Parsed(role="profile", run=RunInfo(device=str(dev), target=canonical_target(target),
                                                 tvm_version=tvm.__version__, variant="live capture"))
    for index, call in enumerate(sequence):
        key = (call["symbol"], call["shapes"], call["dtypes"])
        # A builtin's instrumented time is mostly the callback's own overhead: it counts 0,
        # and what the VM spends outside kernels goes to the one `vm.overhead` node below.
        times = samples.get(key) or [0.0]
        node = derive(NodeRow(
            node_index=index, node_name=call["symbol"], func_name=call["symbol"],
            time_us=float(np.median(times)), input_shapes=[list(s) for s in call["shapes"][:-1]] if call["kernel"] else None,
            input_dtypes=list(call["dtypes"][:-1]) if call["kernel"] else None,
            out_shape=list(call["shapes"][-1]) if call["kernel"] and call["shapes"] else None,
            out_dtype=call["dtypes"][-1] if call["kernel"] and call["dtypes"] else None,
            num_inputs=len(call["shapes"]) - 1 if call["kernel"] else None, device=str(dev), is_kernel=call["kernel"],
        ))
        if not call["kernel"]:
            node.kernel_family = "vm_builtin"
        profile.nodes.append(node)
        if key in samples:
            profile.samples += [SampleRow(index, k, t) for k, t in enumerate(times)]
    overhead = float(np.median(end_to_end)) - kernel_total
    if overhead > 0:
        profile.nodes.append(NodeRow(node_index=len(sequence), node_name="vm.overhead", func_name="vm.overhead",
                                     time_us=overhead, device=str(dev), is_kernel=False, kernel_family="vm_builtin"))
    meta = {
        "host": socket.gethostname(), "cpu_model": _cpu_model(), "cpu_cores": os.cpu_count(),
        "threads": int(os.environ.get("TVM_NUM_THREADS") or os.cpu_count() or 1), "os": platform.platform(),
        "python_version": platform.python_version(), "hotdb_version": __version__, "ir_sha256": loaded.ir_sha256,
        "timing_method": f"time_evaluator per (kernel, shapes) in {repeat} rounds over all kernels, fresh tensors "
                         f"each round, min_repeat_ms={min_repeat_ms}, warmup={warmup}",
        "end_to_end_us": end_to_end, "others_cpu_pct": others_cpu_pct, "capture_s": time.monotonic() - started,
    }
    instrumented = sum(c["instrumented_us"] for c in sequence if c["kernel"])
    return Capture(loaded.name, profile, tasks, loaded.script, meta, instrumented)


class OthersCpu:
    """How much of the machine's CPU time other processes used since it was made, in %.

    Two captures of one build differ most when something else ran beside one of them (two
    busy processes on two cores double a kernel's time); its samples cannot show that, so
    the capture measures it: all CPUs' busy time (/proc/stat) minus this process's own.
    None where /proc/stat is not there."""

    def __init__(self):
        self.start = self._now()

    @staticmethod
    def _now() -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat", "rb") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        hz = os.sysconf("SC_CLK_TCK")
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        own = os.times()
        return sum(fields) / hz, (sum(fields) - idle) / hz, own.user + own.system

    def pct(self) -> float | None:
        end = self._now()
        if self.start is None or end is None or end[0] <= self.start[0]:
            return None
        total, busy, own = (e - s for e, s in zip(end, self.start))
        return round(min(100.0, max(0.0, 100 * (busy - own) / total)), 1)


def _record_calls(vm, entry: str, inputs, dev) -> list[dict]:
    """One instrumented run: every VM call in order, with argument shapes and dtypes."""
    from tvm import relax

    calls: list[dict] = []
    started: list[float] = []

    def instrument(func, symbol, before_run, ret_value, *args):
        if before_run:
            tensors = [a for a in args if hasattr(a, "shape") and hasattr(a, "dtype")]
            calls.append({"symbol": str(symbol), "kernel": not str(symbol).startswith("vm.builtin."),
                          "shapes": tuple(tuple(int(d) for d in a.shape) for a in tensors),
                          "dtypes": tuple(str(a.dtype) for a in tensors)})
            dev.sync()
            started.append(time.perf_counter())
        else:
            dev.sync()
            calls[len(started) - 1]["instrumented_us"] = (time.perf_counter() - started[-1]) * 1e6
        return relax.VMInstrumentReturnKind.NO_OP

    vm.set_instrument(instrument)
    vm[entry](*inputs)
    for call in calls:
        call.setdefault("instrumented_us", 0.0)
    return calls


def _cpu_model() -> str | None:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None

