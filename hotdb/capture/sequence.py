"""A model's call sequence: every VM call of one inference in order, each kernel with its
arguments' shapes and dtypes, which a capture times one by one (hotdb/capture/profile.py).

Two ways to know it:

* `recorded`: one run with the VM's instrument callback, which sees every call. A local
  capture records it so (and what the callback measured around each kernel, the baseline
  method).
* `static`: read from the compiled executable, for a device reached over RPC, where the
  callback cannot go (TVM refuses to pass a Python function to the remote). For static
  shapes the sequence is static: the executable's bytecode (`Executable.as_text()`) lists
  every call of the entry function in order, builtins too, and the lowered module's
  PrimFuncs give each kernel's argument shapes. Measured against `recorded` on the zoo's
  MLP (16 calls) and MobileNetV2 (179): the same calls in the same order, builtins
  included, and the same kernel signatures (tests/capture/test_rpc.py holds them to it).
  The lowered Relax function was the other candidate: its kernels agree, its builtins do
  not (it frees with kill_object where the VM calls null_value, and binds the first
  null_value as a constant), so the bytecode is read.
"""

from __future__ import annotations

import re
import time

from hotdb.errors import UsageError

_FUNCTION = re.compile(r"^@(\S+):$")
_CALL = re.compile(r"^\s+call\s+(\S+)\s+in:")
_RETURN = re.compile(r"^\s+ret\b")


def recorded(vm, entry: str, inputs, dev) -> list[dict]:
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


def static(executable, lowered, entry: str) -> list[dict]:
    """The entry function's calls from the executable's bytecode, each kernel's argument
    shapes and dtypes from its PrimFunc in the lowered module. A function that branches, or
    a kernel whose shapes are not static, is refused: its calls depend on its inputs."""
    import tvm
    from tvm.s_tir.meta_schedule.arg_info import ArgInfo

    functions = _functions(executable.as_text())
    kernels = {gv.name_hint: func for gv, func in lowered.functions.items() if isinstance(func, tvm.tirx.PrimFunc)}
    signatures: dict[str, tuple] = {}
    calls = []
    for symbol in _flattened(functions, entry, ()):
        if symbol in kernels:
            if symbol not in signatures:
                args = ArgInfo.from_prim_func(kernels[symbol])
                try:
                    shapes = tuple(tuple(int(d) for d in a.shape) for a in args)
                except (TypeError, ValueError):
                    raise UsageError(f"kernel {symbol} has no static shapes; a capture over RPC reads the call "
                                     "sequence from the executable, which needs static shapes") from None
                signatures[symbol] = (shapes, tuple(str(a.dtype) for a in args))
            shapes, dtypes = signatures[symbol]
            calls.append({"symbol": symbol, "kernel": True, "shapes": shapes, "dtypes": dtypes, "instrumented_us": 0.0})
        else:  # a VM builtin (or a library's packed function, which hotdb does not time alone)
            calls.append({"symbol": symbol, "kernel": False, "shapes": (), "dtypes": (), "instrumented_us": 0.0})
    return calls


def _functions(text: str) -> dict[str, list[str]]:
    """Each VM function of the bytecode with its instructions: a called symbol, or None for
    an instruction that is neither a call nor the return (a branch)."""
    functions: dict[str, list[str | None]] = {}
    current = None
    for line in text.splitlines():
        match = _FUNCTION.match(line)
        if match:
            current = functions.setdefault(match.group(1), [])
            continue
        if current is None or not line.strip():
            continue
        if not line.startswith((" ", "\t")):  # `@name packed_func;`: a declaration, no body
            current = None
            continue
        call = _CALL.match(line)
        if call:
            current.append(call.group(1))
        elif not _RETURN.match(line):
            current.append(None)
    return functions


def _flattened(functions: dict, name: str, stack: tuple) -> list[str]:
    """The calls of VM function `name`, calls of other VM functions replaced by theirs."""
    if name not in functions:
        raise UsageError(f"the executable has no VM function {name!r}")
    if name in stack:
        raise UsageError(f"VM function {name} calls itself: its call sequence is not static")
    out = []
    for symbol in functions[name]:
        if symbol is None:
            raise UsageError(f"VM function {name} branches (if, goto): its call sequence depends on its inputs, so "
                             "it cannot be read from the executable for a capture over RPC; profile it locally")
        out += _flattened(functions, symbol, stack + (name,)) if symbol in functions else [symbol]
    return out
