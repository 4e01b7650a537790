"""What `hotdb profile MODEL` can profile: a zoo name, an ONNX file, or `file.py:function`.

Each resolves to a Relax IRModule whose weights are bound as constants (so that
compilation folds them, as deployment builds do), the entry function's name, and the
IR text before binding (for the IR source and its hash).
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hotdb.errors import UsageError


@dataclass
class LoadedModel:
    name: str  #: model name for the database
    mod: object  #: tvm.IRModule, weights bound
    entry: str
    script: str  #: TVMScript of the module before weights were bound
    source: str  #: where it came from: "zoo:resnet18", a file path, ...

    @property
    def ir_sha256(self) -> str:
        return hashlib.sha256(self.script.encode()).hexdigest()


def _random(shape, dtype, seed: int):
    rng = np.random.default_rng(seed)
    if "int" in str(dtype):
        return rng.integers(0, 8, size=shape).astype(str(dtype))
    return (rng.standard_normal(shape) * 0.05).astype(str(dtype))


def _bind(mod, entry: str, params: dict):
    from tvm import relax

    if not params:
        return mod
    return relax.transform.BindParams(entry, params)(mod)


def load_model(spec, entry: str | None = None) -> LoadedModel:
    """`spec`: a zoo name, an .onnx file, `file.py:function`, or (from Python) an IRModule,
    (IRModule, params), or what nn.Module.export_tvm() returns."""
    from hotdb.capture.zoo import ZOO

    if not isinstance(spec, (str, Path)):
        return _module(spec, entry, "an IRModule given in Python", "irmodule", "python")
    spec = str(spec)
    if spec in ZOO:
        module, inputs = ZOO[spec].build()
        mod, params = module.export_tvm(inputs)
        values = {name: _random([int(d) for d in p.shape], p.dtype, i) for i, (name, p) in enumerate(params)}
        return LoadedModel(spec, _bind(mod, "forward", values), "forward", mod.script(), f"zoo:{spec}")
    if spec.endswith(".onnx"):
        return _onnx(Path(spec), entry)
    path, sep, function = spec.rpartition(":")
    if sep and path.endswith(".py"):
        return _python(Path(path), function, entry)
    raise UsageError(f"unknown model {spec!r}: expected a zoo name ({', '.join(ZOO)}), an .onnx file, "
                     "or path/to/file.py:function")


def _onnx(path: Path, entry: str | None) -> LoadedModel:
    if not path.is_file():
        raise UsageError(f"{path}: no such ONNX file")
    try:
        import onnx
    except ImportError:
        raise UsageError("ONNX models need the onnx package: pip install 'hotdb[onnx]'") from None
    from tvm import relax
    from tvm.relax.frontend import detach_params
    from tvm.relax.frontend.onnx import from_onnx

    try:
        model = onnx.load(str(path))
        # weights as typed inputs first, so that the IR text shows their shapes
        mod, params = detach_params(from_onnx(model, keep_params_in_input=True))
    except Exception as exc:  # the frontend raises many kinds; all mean "cannot import this file"
        raise UsageError(f"{path}: the ONNX importer failed: {exc}") from None
    mod = relax.transform.DecomposeOpsForInference()(mod)
    entry = entry or "main"
    values = {p.name_hint if hasattr(p, "name_hint") else str(p): v for p, v in zip(
        mod[entry].params[len(mod[entry].params) - len(params.get(entry, [])):], params.get(entry, []))}
    return LoadedModel(path.stem, _bind(mod, entry, values), entry, mod.script(), str(path))


def _python(path: Path, function: str, entry: str | None) -> LoadedModel:
    if not path.is_file():
        raise UsageError(f"{path}: no such Python file")
    module_spec = importlib.util.spec_from_file_location(f"hotdb_user_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        raise UsageError(f"{path}: importing it failed: {type(exc).__name__}: {exc}") from None
    if not hasattr(module, function):
        raise UsageError(f"{path} has no function {function!r}")
    # named for the file (docs/commands.md); two functions of one file that give other IRs
    # become models of their own (ops/common.py: model_name_for)
    return _module(getattr(module, function)(), entry, f"{path}:{function}", path.stem, f"{path}:{function}")


def _module(result, entry: str | None, where: str, name: str, source: str) -> LoadedModel:
    """A model given as an IRModule; (IRModule, params); or what nn.Module.export_tvm()
    returns: (IRModule, [(name, nn.Parameter)]), with a third item (external modules)
    when allow_extern=True."""
    mod, params = (result[0], result[1] if len(result) > 1 else None) if isinstance(result, (tuple, list)) else (result, None)
    import tvm

    if not isinstance(mod, tvm.IRModule):
        raise UsageError(f"{where}: {type(mod).__name__} where an IRModule, (IRModule, params) or what "
                         "nn.Module.export_tvm() returns was expected")
    entry = entry or _only_entry(mod, where)
    if entry not in [gv.name_hint for gv in mod.get_global_vars()]:
        raise UsageError(f"{where}: the module has no function {entry!r} (use --entry)")
    script = mod.script()
    return LoadedModel(name, _bind(mod, entry, _param_values(params, where)), entry, script, source)


def _only_entry(mod, where: str) -> str:
    """main when the module has it, else its only Relax function."""
    from tvm import relax

    names = sorted(gv.name_hint for gv, func in mod.functions.items() if isinstance(func, relax.Function))
    if "main" in names or not names:
        return "main"
    if len(names) == 1:
        return names[0]
    raise UsageError(f"{where}: the module has {len(names)} functions ({', '.join(names)}); name one with --entry")


def _param_values(params, where: str) -> dict:
    """Weights by name, as arrays, from a dict or a list of (name, value) pairs; a value
    may be an array, a TVM tensor or an nn.Parameter (random values of its shape and
    dtype when it holds none, as export_tvm() leaves them)."""
    if not params:
        return {}
    try:
        pairs = list(params.items()) if hasattr(params, "items") else [(name, value) for name, value in params]
    except (TypeError, ValueError):
        raise UsageError(f"{where}: params must be a dict or a list of (name, value) pairs, "
                         f"not {type(params).__name__}") from None
    values = {}
    for i, (name, value) in enumerate(pairs):
        data = value.data if type(value).__name__ == "Parameter" else value  # nn.Parameter.data: None or a tensor
        if data is None:
            data = _random([int(d) for d in value.shape], value.dtype, i)
        values[str(name)] = data.numpy() if hasattr(data, "numpy") else np.asarray(data)
    return values


def input_arrays(mod, entry: str) -> list:
    """Random inputs for the entry function, from its parameters' shapes and dtypes."""
    func = mod[entry]
    arrays = []
    for i, param in enumerate(func.params):
        ty = param.struct_info if hasattr(param, "struct_info") else param.ty
        shape = getattr(ty, "shape", None)
        try:
            dims = [int(d) for d in shape]
        except (TypeError, ValueError):
            raise UsageError(f"input {i} of {entry} has no static shape ({shape}); hotdb needs static shapes") from None
        arrays.append(_random(dims, str(ty.dtype), 1000 + i))
    return arrays
