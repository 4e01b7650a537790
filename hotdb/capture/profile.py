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

On a device lent by an RPC tracker (`--rpc`, class Remote) the method is the same, with
two differences: the instrument callback cannot run there, so step 1 reads the call
sequence from the compiled executable (hotdb/capture/sequence.py says why that is the
same sequence), and the load other processes put on the device is not known.

VM builtins (alloc, reshape views, shape checks) are recorded as non-kernel nodes of
time 0 (what the instrumented run measures for them is mostly the callback itself); the
end-to-end median minus the sum of kernel medians, when positive, is one non-kernel node
`vm.overhead`, so that a run's total is the model's measured time.
"""

from __future__ import annotations

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


def device_for(target):
    """This machine's device for `target`; a UsageError where it has none, or where the
    target's code is for another machine (a device reached through a tracker runs it)."""
    import tvm

    from hotdb.capture.targets import device_kind, is_foreign, triple

    if is_foreign(target):
        raise UsageError(f"the target is for {triple(target)}, not this machine: profile it on its device through "
                         "an RPC tracker (--rpc HOST:PORT --key KEY; docs/devices.md)")
    kind = target.kind.name
    dev = tvm.device(device_kind(target), 0)
    if not dev.exist:
        raise UsageError(f"target {kind}: no {kind} device on this machine (a remote one: --rpc HOST:PORT --key KEY)")
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
            progress: Progress | None = None, apply=None, rpc=None, cc: str | None = None) -> Capture:
    """Capture one run: here, or on a device lent by an RPC tracker (`rpc`, a
    hotdb.capture.remote.Rpc), the library cross-compiled where the target is not this
    machine's (`cc`: hotdb/capture/targets.py). `apply(fused_module) -> module` changes what
    is compiled (hotdb tune applies its tuning database there); tasks always come from the
    fused module."""
    started = time.monotonic()
    progress = progress or (lambda stage, done, total: None)
    place = Remote(target, rpc, cc) if rpc is not None else Here(target)
    with place:  # a remote device is lent first: a busy key or a wrong device costs no compile
        progress("compile", 0, 1)
        tasks, lowered, executable = compiled(loaded, target, apply)
        progress("compile", 1, 1)
        measured = place.measure(loaded, executable, lowered, repeat=repeat, warmup=warmup,
                                 min_repeat_ms=min_repeat_ms, progress=progress)
    profile = _profile(measured, place, target)
    meta = {**place.meta(), "hotdb_version": __version__, "ir_sha256": loaded.ir_sha256,
            "timing_method": f"time_evaluator per (kernel, shapes) in {repeat} rounds over all kernels, fresh tensors "
                             f"each round, min_repeat_ms={min_repeat_ms}, warmup={warmup}{place.method}",
            "end_to_end_us": measured.end_to_end, "others_cpu_pct": measured.others_cpu_pct,
            "capture_s": time.monotonic() - started}
    instrumented = sum(c["instrumented_us"] for c in measured.sequence if c["kernel"])
    return Capture(loaded.name, profile, tasks, loaded.script, meta, instrumented)


def compiled(loaded, target, apply=None):
    """(tasks, lowered module, executable) of a model: tasks from the fused module, the
    executable from it (after `apply`) through the default pipeline, lowered here rather
    than in tvm.compile so that the kernels' signatures can be read from it."""
    import tvm
    from tvm import relax

    from hotdb.capture.tasks import task_rows

    fused = fuse(loaded.mod, target)
    tasks = task_rows(fused, target)
    module = apply(fused) if apply is not None else fused
    with target:
        lowered = relax.get_default_pipeline(target)(module)
    return tasks, lowered, tvm.compile(lowered, target=target, relax_pipeline=None)


@dataclass
class Measured:
    sequence: list[dict]  # every VM call (hotdb/capture/sequence.py)
    samples: dict  # (symbol, shapes, dtypes) -> a kernel's samples, us
    end_to_end: list[float]  # the whole model's samples, us
    others_cpu_pct: float | None
    device: str  # as the runtime names it


def _timed(make_vm, kernels, entry: str, inputs, dev, sequence_of, *, repeat: int, warmup: int, min_repeat_ms: int,
           progress: Progress, busy) -> Measured:
    """Warm up, read the call sequence, time every kernel signature in rounds and the
    whole model: the method, wherever the device is."""
    import numpy as np
    import tvm

    vm = make_vm()
    for i in range(warmup):
        progress("warm-up", i, warmup)
        vm[entry](*inputs)
    progress("warm-up", warmup, warmup)
    sequence = sequence_of(vm)
    signatures = sorted({(c["symbol"], c["shapes"], c["dtypes"]) for c in sequence if c["kernel"]})
    # Samples are rounds: each round times every kernel once, on tensors of its own. Two
    # captures of one build differ by up to ~10 % in a kernel (where its buffers fall, what
    # else the machine does); back-to-back repeats on one allocation would hide that from
    # the significance test, rounds spread over the capture and its allocations show it.
    busy = busy()
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
    fresh = make_vm()  # no instrument: nothing added per call
    whole = fresh.time_evaluator(entry, dev, number=1, repeat=repeat, min_repeat_ms=min_repeat_ms)
    end_to_end = [t * 1e6 for t in whole(*inputs).results]
    progress("end-to-end", 1, 1)
    return Measured(sequence, samples, end_to_end, busy.pct() if busy else None, str(dev))


def _profile(measured: Measured, place, target) -> Parsed:
    """The run's rows: a node per VM call, samples per kernel call, and the VM's own time
    (end to end less the kernels) as one `vm.overhead` node."""
    import numpy as np
    import tvm

    sequence, samples, device = measured.sequence, measured.samples, measured.device
    kernel_total = sum(float(np.median(samples[(c["symbol"], c["shapes"], c["dtypes"])]))
                       for c in sequence if c["kernel"])
    profile = Parsed(role="profile", run=RunInfo(device=device, target=canonical_target(target),
                                                 tvm_version=tvm.__version__, variant=place.variant))
    for index, call in enumerate(sequence):
        key = (call["symbol"], call["shapes"], call["dtypes"])
        # A builtin's instrumented time is mostly the callback's own overhead: it counts 0,
        # and what the VM spends outside kernels goes to the one `vm.overhead` node below.
        times = samples.get(key) or [0.0]
        kernel = call["kernel"]
        node = derive(NodeRow(
            node_index=index, node_name=call["symbol"], func_name=call["symbol"], time_us=float(np.median(times)),
            input_shapes=[list(s) for s in call["shapes"][:-1]] if kernel else None,
            input_dtypes=list(call["dtypes"][:-1]) if kernel else None,
            out_shape=list(call["shapes"][-1]) if kernel and call["shapes"] else None,
            out_dtype=call["dtypes"][-1] if kernel and call["dtypes"] else None,
            num_inputs=len(call["shapes"]) - 1 if kernel else None, device=device, is_kernel=kernel,
        ))
        if not kernel:
            node.kernel_family = "vm_builtin"
        profile.nodes.append(node)
        if key in samples:
            profile.samples += [SampleRow(index, k, t) for k, t in enumerate(times)]
    overhead = float(np.median(measured.end_to_end)) - kernel_total
    if overhead > 0:
        profile.nodes.append(NodeRow(node_index=len(sequence), node_name="vm.overhead", func_name="vm.overhead",
                                     time_us=overhead, device=device, is_kernel=False, kernel_family="vm_builtin"))
    return profile


class Here:
    """This machine: the executable loaded in this process, the call sequence recorded by
    the VM's instrument callback, the other processes' CPU time measured."""

    variant = "live capture"
    method = ""

    def __init__(self, target):
        self.dev = device_for(target)

    def __enter__(self) -> "Here":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def measure(self, loaded, executable, lowered, **timing) -> Measured:
        import tvm
        from tvm import relax

        from hotdb.capture.models import input_arrays
        from hotdb.capture.sequence import recorded

        inputs = [tvm.runtime.tensor(a, self.dev) for a in input_arrays(loaded.mod, loaded.entry)]
        return _timed(lambda: relax.VirtualMachine(executable, self.dev), executable.mod.imports[0], loaded.entry, inputs, self.dev,
                      lambda vm: recorded(vm, loaded.entry, inputs, self.dev), busy=OthersCpu, **timing)

    def meta(self) -> dict:
        return {"host": socket.gethostname(), "cpu_model": _cpu_model(), "cpu_cores": os.cpu_count(),
                "threads": int(os.environ.get("TVM_NUM_THREADS") or os.cpu_count() or 1), "os": platform.platform(),
                "python_version": platform.python_version()}


class Remote:
    """A device lent by an RPC tracker (hotdb/capture/remote.py): the executable and its
    kernels exported as two libraries (cross-compiled where the target is not this
    machine's), uploaded and loaded there; the call sequence read from the executable
    (hotdb/capture/sequence.py: static); the device's other load unknown (None)."""

    variant = "live capture (rpc)"

    def __init__(self, target, rpc, cc: str | None):
        from hotdb.capture.targets import cross_compiler, device_kind, triple

        self.target, self.rpc = target, rpc
        self.kind, self.triple = device_kind(target), triple(target)
        self.fcompile, self.cc = cross_compiler(target, cc)  # before a device is held: a missing compiler is usage
        self.device = self.dev = self.dev_name = None

    def __enter__(self) -> "Remote":
        from hotdb.capture.remote import Device

        self.device = Device(self.rpc)
        try:
            self.dev = self.device.device(self.kind)
            self.dev_name = self.device.name(self.dev)
        except BaseException:
            self.device.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.device.__exit__(*exc)

    @property
    def method(self) -> str:
        return (f", over RPC (tracker {self.rpc.tracker}, key {self.rpc.key}, server {self.device.server}); "
                "the call sequence read from the executable's bytecode")

    def measure(self, loaded, executable, lowered, **timing) -> Measured:
        import tempfile

        import tvm
        from tvm import relax

        from hotdb.capture.models import input_arrays
        from hotdb.capture.sequence import static

        sequence = static(executable, lowered, loaded.entry)  # before the device is used: a usage error
        with tempfile.TemporaryDirectory(prefix="hotdb-rpc-") as folder:
            model_path, kernels_path = os.path.join(folder, f"{loaded.name}.so"), os.path.join(folder, "kernels.so")
            # the kernels on their own too: a module loaded over RPC finds its imports' functions
            # for the VM, not for time_evaluator
            executable.export_library(model_path, fcompile=self.fcompile)
            executable.mod.imports[0].export_library(kernels_path, fcompile=self.fcompile)
            dev = self.dev
            timing["progress"]("upload", 0, 1)
            library = self.device.load(model_path, "model's library", self.triple)
            kernels = self.device.load(kernels_path, "kernels' library", self.triple)
            timing["progress"]("upload", 1, 1)
        try:
            inputs = [tvm.runtime.tensor(a, dev) for a in input_arrays(loaded.mod, loaded.entry)]
            return _timed(lambda: relax.VirtualMachine(library, dev), kernels, loaded.entry, inputs, dev, lambda vm: sequence, busy=lambda: None, **timing)
        except Exception as exc:  # noqa: BLE001 - TVM's RPC errors: the device lost, or the run failed there
            raise self.device.failed(exc, "failed while timing the model") from None

    def meta(self) -> dict:
        return {"host": socket.gethostname(), "python_version": platform.python_version(), "device_key": self.rpc.key,
                "rpc_tracker": self.rpc.tracker, "rpc_server": self.device.server, "device_name": self.dev_name}


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


def _cpu_model() -> str | None:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None

