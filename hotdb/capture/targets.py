"""Targets as TVM users write them, made into what apache-tvm 0.27 takes, and the compiler
that builds a library for them.

A target comes as a short name (`llvm`, `cuda`), a JSON dict, one of TVM's target tags
(`raspberry-pi/4b-aarch64`, `nvidia/jetson-orin-nano`: `tvm.target.list_tags()`), or the
text form TVM printed and parsed for years (`llvm -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu`,
`cuda -arch=sm_80`), which TVM 0.27 refuses: it is translated to the dict TVM now takes
(hotdb/workload/targets.py: from_text, the one reading of that form) and the dict said in
a note. A target TVM rejects is refused with TVM's own reason, on one line.

A target whose triple is not this machine's is built with a cross compiler: `--cc`
(HOTDB_CC), else `<triple>-gcc` where one is on the PATH (Debian's gcc-aarch64-linux-gnu
gives aarch64-linux-gnu-gcc); Android's comes from the NDK, named with --cc.
"""

from __future__ import annotations

import json
import os
import platform
import shutil

from hotdb.errors import UsageError
from hotdb.workload.targets import from_text

SHORT_GPU = ("cuda", "rocm", "metal", "vulkan", "opencl")
CPU_KINDS = ("llvm", "c")
_ARCH_ALIASES = {"arm64": "aarch64", "amd64": "x86_64", "x64": "x86_64"}


def parse_target(text: str | None):
    """A tvm Target from any form above; llvm gets the host's core count where it says
    none (MetaSchedule needs one), and a GPU kind an llvm host."""
    import tvm

    spec = target_spec(text)
    try:
        if isinstance(spec, str):  # a tag
            target = tvm.target.Target(spec)
            if target.kind.name not in CPU_KINDS and target.host is None:
                target = tvm.target.Target(spec, host={"kind": "llvm"})
            return target
        return tvm.target.Target(spec)
    except Exception as exc:  # TVM raises ValueError or its own errors; its reason is the message
        raise UsageError(f"--target {text!r}: TVM rejects it: {one_line(exc)}") from None


def target_spec(text: str | None) -> dict | str:
    """The dict TVM takes for `text`, or the tag itself."""
    cores = os.cpu_count() or 1
    text = (text or "").strip()
    if not text or text == "llvm":
        spec = {"kind": "llvm"}
    elif text.startswith("{"):
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--target: not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(spec, dict):
            raise UsageError("--target: a JSON target is a dict, such as '{\"kind\": \"llvm\", \"num-cores\": 2}'")
    elif text in SHORT_GPU:
        spec = {"kind": text, "host": {"kind": "llvm"}}
    elif (spec := from_text(text)) is not None:
        if spec["kind"] in SHORT_GPU:
            spec.setdefault("host", {"kind": "llvm"})
    elif _is_tag(text):
        return text
    else:
        raise UsageError(f"--target {text!r}: use a short name (llvm, cuda, ...), a JSON dict such as "
                         '\'{"kind": "llvm", "num-cores": 2}\', a TVM target tag (raspberry-pi/4b-aarch64, '
                         "nvidia/jetson-orin-nano: tvm.target.list_tags()) or TVM's text form "
                         "(llvm -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu)")
    if spec.get("kind") == "llvm":
        spec.setdefault("num-cores", cores)
    if spec.get("kind") == "cuda":
        spec = {**_cuda_limits(), **spec}
    return spec


def target_note(text: str | None) -> str | None:
    """What a command says when it translated TVM's old text form: the dict it used."""
    spec = from_text(text or "")
    if spec is None:
        return None
    return f"--target {text.strip()!r} is TVM's old text form, which TVM 0.27 refuses; used as {json.dumps(spec)}"


def _is_tag(text: str) -> bool:
    import tvm

    return text in tvm.target.list_tags()


def one_line(exc: BaseException) -> str:
    """TVM's reason for an error, on one line: its message's last line (TVM puts its
    traceback first, where it gives one)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


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


def device_kind(target) -> str:
    """The device type TVM runs `target`'s kernels on: cpu for llvm and c."""
    kind = target.kind.name
    return "cpu" if kind in CPU_KINDS else kind


def triple(target) -> str | None:
    """The triple the library's host code is built for: the target's (a CPU target) or its
    host's (a GPU target); None where it names none (this machine's)."""
    cpu = target if target.kind.name in CPU_KINDS else target.host
    if cpu is None:
        return None
    value = cpu.attrs.get("mtriple") if hasattr(cpu.attrs, "get") else None
    return str(value) if value else None


def host_arch() -> str:
    machine = platform.machine().lower()
    return _ARCH_ALIASES.get(machine, machine)


def is_foreign(target) -> bool:
    """Whether `target`'s code cannot run on this machine: another architecture, or Android."""
    found = triple(target)
    if not found:
        return False
    arch = _ARCH_ALIASES.get(found.split("-")[0].lower(), found.split("-")[0].lower())
    return arch != host_arch() or ("android" in found) != ("android" in platform.platform().lower())


def cross_compiler(target, cc: str | None):
    """The `fcompile` export_library needs for `target`: `cc` where given, else
    `<triple>-gcc` for a foreign target; None where the host's own compiler builds it.
    Returns (fcompile, compiler path)."""
    from tvm.support import cc as tvm_cc

    if cc:
        found = shutil.which(cc)
        if found is None:
            raise UsageError(f"--cc {cc!r}: no such compiler (give a path, or a name on the PATH)")
        return tvm_cc.cross_compiler(found), found
    if not is_foreign(target):
        return None, None
    name = triple(target)
    guess = shutil.which(f"{name}-gcc") or shutil.which(f"{_debian_triple(name)}-gcc")
    if guess is None:
        raise UsageError(f"the target is for {name}, not this machine ({host_arch()}): give its cross compiler with "
                         f"--cc or HOTDB_CC (Debian's gcc-{_debian_triple(name)} gives {_debian_triple(name)}-gcc; for "
                         "Android, the NDK's clang++)")
    return tvm_cc.cross_compiler(guess), guess


def _debian_triple(name: str) -> str:
    """aarch64-unknown-linux-gnu -> aarch64-linux-gnu: Debian names its cross compilers
    without the vendor."""
    parts = name.split("-")
    return "-".join(p for i, p in enumerate(parts) if not (i == 1 and p in ("unknown", "pc", "none") and len(parts) > 3))
