"""`relax`: a Relax IRModule printed as TVMScript (`mod.script()`, `mod.show()`).

Three forms are read, as the pipeline leaves them:

* high level:  `lv: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], ...)`
* fused:       `lv = R.call_tir(cls.fused_conv2d_add_relu, (x, w, b), out_ty=R.Tensor(...))`
* VM-lowered:  `cls.fused_conv2d_add_relu(x, w, b, alloc)` (destination-passing: the last argument is the output)

High-level calls get their workload like Relay calls (same attribute names). Calls of
PrimFuncs keep the PrimFunc's name (what the Relax VM profiler and MetaSchedule call the
kernel), its anchor op family (the first reduction block, e.g. `conv2d_nchw`) and the
flattened argument dims. VM builtins, allocations and packed calls are not IR calls.
"""

from __future__ import annotations

import json
import re

from hotdb.ingest.base import Source
from hotdb.ingest.relay_expr import Expr, ExprError, ExprReader
from hotdb.ingest.rows import IrCallRow, Parsed
from hotdb.workload import WorkloadError, flat_dims, from_kernel_args, from_relay_call, relay_op_family
from hotdb.workload.families import sblock_family

_PRIM_DEF = re.compile(r"^def\s+(\w+)\s*\(")
_SBLOCK = re.compile(r'T\.sblock\("([^"]+)"\)|T\.block\("([^"]+)"\)')
_REMAP = re.compile(r'T\.axis\.remap\("([SR]+)"')
_SKIP_CALLS = ("R.call_packed", "R.vm.", "R.call_builtin", "R.output", "R.null_value", "R.shape", "R.str", "R.dtype",
               "R.func_attr", "R.memory.", "R.builtin.")


class RelaxScript:
    name = "relax"
    role = "ir"
    reads = "Relax IRModule TVMScript (mod.script()): high-level R.* calls, R.call_tir to PrimFuncs, VM-lowered calls"
    detects = "'@R.function' (with '@I.ir_module' or 'R.Tensor(') in the text"

    def sniff(self, source: Source) -> bool:
        head = source.head
        return "@R.function" in head or ("@I.ir_module" in head and "R.Tensor(" in head)

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Each printed module: from its `# from tvm.script import` lines or decorator to the
        first unindented line that is not part of it."""
        out, i = [], 0
        module_start = re.compile(r"^(# from tvm\.script import|@I\.ir_module|@tvm\.script\.ir_module|@R\.function)")
        part = re.compile(r"^(@|class |def |# |from |import )")
        while i < len(lines):
            if not module_start.match(lines[i]):
                i += 1
                continue
            start, j = i, i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j][:1].isspace() or part.match(lines[j])):
                j += 1
            while j > start and not lines[j - 1].strip():
                j -= 1
            out.append((start, j))
            i = j
        return out

    def parse(self, source: Source) -> Parsed:
        lines = source.lines
        primfuncs = _primfuncs(source, lines)
        parsed = Parsed(role="ir")
        function, scope, indent = None, {}, 0
        pending_decorator = None
        for line_no, line in enumerate(lines, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith("@"):
                pending_decorator = text
                continue
            if text.startswith("def ") and "(" in text:
                current_indent = len(line) - len(line.lstrip())
                if pending_decorator and pending_decorator.startswith("@R.function"):
                    function, indent = text[4:].split("(", 1)[0].strip(), current_indent
                    scope = self._params(source, line_no, text)
                else:
                    function = None
                pending_decorator = None
                continue
            pending_decorator = None
            if function is None:
                continue
            if len(line) - len(line.lstrip()) <= indent:
                function = None
                continue
            try:
                self._statement(source, parsed, primfuncs, scope, function, line_no, text)
            except ExprError as exc:
                raise source.error(line_no, f"{exc} (column {exc.column + 1})") from None
        if not parsed.ir_calls:
            raise source.error(None, "no Relax calls found: expected R.* calls or R.call_tir(cls.<PrimFunc>, ...) in an @R.function")
        return parsed

    def _params(self, source: Source, line_no: int, text: str) -> dict:
        reader = ExprReader(text, text.index("("))
        reader.expect("(")
        scope = {}
        try:
            while not reader.peek(")"):
                name = reader.match(re.compile(r"\w+"))
                if name is None:
                    raise ExprError("expected a parameter name", reader.pos)
                reader.expect(":", "':' and a type after a parameter")
                scope[name] = _tensor_type(reader.expr())
                if not reader.peek(")"):
                    reader.expect(",", "',' or ')' in a parameter list")
        except ExprError as exc:
            raise source.error(line_no, f"{exc} (column {exc.column + 1})") from None
        return scope

    def _statement(self, source, parsed, primfuncs, scope, function, line_no, text) -> None:
        if text.startswith(("return", "with ", "cls =", "R.output")):
            return
        lhs, sep, rhs = text.partition(" = ")
        if not sep:
            lhs, rhs = None, text
        var, annotated = None, None
        if lhs is not None:
            name, colon, type_text = lhs.partition(":")
            var = name.strip()
            if colon:
                annotated = _tensor_type(ExprReader(type_text.strip()).expr())
        if rhs.startswith(_SKIP_CALLS) or not re.match(r"^(R\.|cls\.)[\w.]+\(", rhs):
            if var is not None:
                scope[var] = annotated
            return
        reader = ExprReader(rhs, keep_call_attrs=True)
        call = reader.expr()
        if call.kind != "call":
            return
        name = call.name or ""
        if name == "R.call_tir" or name.startswith("R.call_tir"):
            callee = call.args[0].value if call.args and call.args[0].kind == "literal" else None
            args = call.args[1].args if len(call.args) > 1 and call.args[1].kind == "tuple" else call.args[1:2]
            out = call.attrs.get("out_ty") or call.attrs.get("out_sinfo")
            result = _tensor_type(out) if isinstance(out, Expr) else None
            self._primfunc_call(parsed, primfuncs, scope, function, var, str(callee or ""), args, result, line_no)
            scope[var] = annotated or result
        elif name.startswith("cls."):
            args = call.args
            result = scope.get(args[-1].value) if args and args[-1].kind == "literal" else None
            self._primfunc_call(parsed, primfuncs, scope, function, var, name, args[:-1], result, line_no)
        else:
            op_name = name.removeprefix("R.")
            shapes = [scope.get(a.value) if a.kind == "literal" and isinstance(a.value, str) else None for a in call.args]
            arg_shapes = [s[0] if s else None for s in shapes]
            arg_dtypes = [s[1] if s else None for s in shapes]
            row = IrCallRow(
                call_index=len(parsed.ir_calls), function_name=function, result_var=var, op_name=op_name,
                attrs=json.dumps({k: v for k, v in call.attrs.items() if not isinstance(v, Expr)}, sort_keys=True),
                arg_kinds=["var" if s else "literal" for s in shapes], arg_shapes=arg_shapes, arg_dtypes=arg_dtypes,
                result_shapes=[annotated[0]] if annotated else [], result_dtypes=[annotated[1]] if annotated else [],
                line_no=line_no, op_family=relay_op_family(op_name))
            try:
                workload = from_relay_call(op_name, call.attrs, arg_shapes, arg_dtypes)
            except WorkloadError as exc:
                parsed.warnings.append(f"{source.name}:{line_no}: cannot derive the workload of {op_name}: {exc}")
                workload = None
            if workload is not None:
                row.op_family, row.workload_key = workload.family, parsed.add_workload(workload)
                row.out_shape_logical = list(workload.out)
            elif annotated:
                row.out_shape_logical = annotated[0]
            parsed.ir_calls.append(row)
            scope[var] = annotated

    def _primfunc_call(self, parsed, primfuncs, scope, function, var, callee, args, result, line_no) -> None:
        callee = callee.removeprefix("cls.")
        shapes = [scope.get(a.value) if a.kind == "literal" and isinstance(a.value, str) else None for a in args]
        family, buffers = primfuncs.get(callee, (None, None))
        arg_shapes = [s[0] if s else None for s in shapes]
        if buffers and any(s is None for s in arg_shapes) and len(buffers) == len(arg_shapes) + 1:
            arg_shapes = [s if s is not None else b[0] for s, b in zip(arg_shapes, buffers)]
        if result is None and buffers:
            result = buffers[-1]
        row = IrCallRow(
            call_index=len(parsed.ir_calls), function_name=function, result_var=var, op_name=callee,
            attrs="{}", arg_kinds=["var" if s else "literal" for s in shapes], arg_shapes=arg_shapes,
            arg_dtypes=[s[1] if s else None for s in shapes],
            result_shapes=[result[0]] if result else [], result_dtypes=[result[1]] if result else [],
            line_no=line_no, op_family=family, primfunc=callee,
            out_shape_logical=result[0] if result else None)
        row.args_flat = flat_dims(arg_shapes + ([result[0]] if result else [None]))
        if row.args_flat is not None:
            workload = from_kernel_args(family, [(s, d or "float32") for s, d in zip(arg_shapes + [result[0]], row.arg_dtypes + [result[1]])])
            if workload is not None:
                row.op_family, row.workload_key = workload.family, parsed.add_workload(workload)
                row.out_shape_logical = list(workload.out)
        parsed.ir_calls.append(row)


def _primfuncs(source: Source, lines: list[str]) -> dict[str, tuple[str | None, list]]:
    """PrimFunc name -> (anchor family, buffer (shape, dtype) list) from @T.prim_func defs."""
    out: dict[str, tuple[str | None, list]] = {}
    current, buffers, anchor, block = None, [], None, None
    decorated = False
    for line_no, line in enumerate(lines, start=1):
        text = line.strip()
        if text.startswith("@T.prim_func"):
            decorated = True
            continue
        if decorated and (m := _PRIM_DEF.match(text)):
            if current:
                out[current] = (anchor, buffers)
            current, anchor, block, decorated = m.group(1), None, None, False
            buffers = _buffers(source, line_no, text)
            continue
        if text.startswith("@R.function"):
            if current:
                out[current] = (anchor, buffers)
            current = None
        if current is None:
            continue
        if m := _SBLOCK.search(text):
            block = m.group(1) or m.group(2)
        elif anchor is None and block and (m := _REMAP.search(text)) and "R" in m.group(1):
            anchor = sblock_family(block)
    if current:
        out[current] = (anchor, buffers)
    return out


def _buffers(source: Source, line_no: int, text: str) -> list:
    reader = ExprReader(text, text.index("("))
    reader.expect("(")
    buffers = []
    try:
        while not reader.peek(")"):
            reader.match(re.compile(r"\w+"))
            reader.expect(":", "':' and T.Buffer(...) after a PrimFunc parameter")
            buffers.append(_tensor_type(reader.expr()))
            if not reader.peek(")"):
                reader.expect(",")
    except ExprError as exc:
        raise source.error(line_no, f"{exc} (column {exc.column + 1})") from None
    return buffers


def _dim(e: Expr) -> int:
    if e.kind == "literal" and isinstance(e.value, int):
        return e.value
    if e.kind == "call" and e.args and e.args[0].kind == "literal" and isinstance(e.args[0].value, int):
        return e.args[0].value  # T.int64(16)
    return -1  # symbolic


def _tensor_type(e: Expr | None):
    """(shape, dtype) of `R.Tensor((1, 3), dtype="float32")` or `T.Buffer((T.int64(1), 3), "float32")`."""
    if e is None or e.kind != "call" or not e.name or not e.name.endswith(("Tensor", "Buffer")):
        return None
    shape = None
    if e.args and e.args[0].kind == "tuple":
        shape = [_dim(d) for d in e.args[0].args]
    elif e.args and e.args[0].kind in ("literal", "call"):
        shape = [_dim(e.args[0])]
    dtype = e.attrs.get("dtype")
    if dtype is None and len(e.args) > 1 and e.args[1].kind == "literal":
        dtype = e.args[1].value
    return (shape, dtype) if shape is not None else None

