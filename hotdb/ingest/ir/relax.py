"""`relax`: a Relax IRModule printed as TVMScript (`mod.script()`, `mod.show()`).

Three forms are read, as the pipeline leaves them:

* high level:  `lv: R.Tensor((1, 16, 8, 8), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], ...)`
* fused:       `lv = R.call_tir(cls.fused_conv2d_add_relu, (x, w, b), out_ty=R.Tensor(...))`
* VM-lowered:  `cls.fused_conv2d_add_relu(x, w, b, alloc)` (destination-passing: the last argument is the output)

and as 2022's Relax printed and wrote them (tlc-pack/relax, the MLC course):
`@relax.function`, `x: Tensor((1, 784), "float32")` or `Tensor[(10, 20), "float32"]`,
`relax.call_tir(exp, (x,), (10, 20), dtype="float32")` (the output shape a positional
tuple, its dtype a keyword), `T.Buffer[(1, 784), "float32"]` PrimFunc parameters.
Statements and signatures over several lines (`mod.show()` formats with black) are one.

High-level calls get their workload like Relay calls (same attribute names). Calls of
PrimFuncs keep the PrimFunc's name (what the Relax VM profiler and MetaSchedule call the
kernel), its anchor op family (the first reduction block, e.g. `conv2d_nchw`) and the
flattened argument dims. VM builtins, allocations and packed calls are not IR calls.
Two modules pasted one after the other (a function name defined twice): the last is read.
"""

from __future__ import annotations

import json
import re

from hotdb.ingest.ir.expr import Expr, ExprError, ExprReader
from hotdb.ingest.ir.scope import RelaxScope
from hotdb.ingest.source import Source
from hotdb.ingest.text import bracket_depth
from hotdb.rows import IrCallList, IrCallRow, Parsed
from hotdb.rows.derive import attach_workload
from hotdb.workload import WorkloadError, flat_dims, from_kernel_args, from_relay_call, parse_kernel_name, relay_op_family
from hotdb.workload.families import sblock_family

_PRIM_DEF = re.compile(r"^def\s+(\w+)\s*\(")
_SBLOCK = re.compile(r'T\.sblock\("([^"]+)"\)|T\.block\("([^"]+)"\)')
_REMAP = re.compile(r'T\.axis\.remap\("([SR]+)"')
_RELAX_FUNCTION = re.compile(r"^@(?:R|relax)\.function\b")
_SKIP_CALLS = ("R.call_packed", "R.call_dps_packed", "R.vm.", "R.call_builtin", "R.output", "R.null_value", "R.shape", "R.str", "R.dtype",
               "R.func_attr", "R.memory.", "R.builtin.", "R.match_shape", "R.match_cast", "R.alloc_tensor",
               "R.print", "R.assert_op", "relax.output", "relax.call_packed", "relax.match_shape", "relax.vm.",
               "relax.builtin.", "relax.memory.")
_CALL_TIR = ("R.call_tir", "relax.call_tir")


class RelaxScript:
    name = "relax"
    role = "ir"
    reads = "Relax IRModule TVMScript (mod.script()): high-level R.* calls, R.call_tir to PrimFuncs, VM-lowered calls"
    detects = "'@R.function' or '@relax.function' (or '@I.ir_module' with 'R.Tensor(') in the text"

    def sniff(self, source: Source) -> bool:
        head = source.head
        # a module whose PrimFuncs fill the head (an LLM's) says in its first lines that it
        # imports Relax: the printer imports `relax as R` only for a module that uses it
        cut = source.size > len(head.encode())
        return _holds_relax(head) or (cut and "@I.ir_module" in head and "import relax as R" in head)

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Each printed module: from its `# from tvm.script import` lines or decorator to the
        first unindented line that is not part of it."""
        out, i = [], 0
        module_start = re.compile(r"^(# from tvm\.script import|@I\.ir_module|@tvm\.script\.ir_module|@R\.function"
                                  r"|@relax\.function)")
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
            if _holds_relax("\n".join(lines[start:j])):  # a module of PrimFuncs only is TIR, not Relax
                out.append((start, j))
            i = j
        return out

    def parse(self, source: Source) -> Parsed:
        """Two passes over the lines (`iter_lines`: a large module is streamed), each
        holding one statement at a time: the PrimFuncs' signatures and anchor blocks, then
        the Relax functions' calls, kept as Arrow (IrCallList, spilled beyond a bound), the
        bindings' types in a RelaxScope (4 bytes a numbered one): what is held grows with
        the PrimFuncs and the distinct types, not with the text."""
        primfuncs = _primfuncs(source, _logical_lines(source.iter_lines()))
        parsed = Parsed(role="ir", ir_calls=IrCallList(source))  # as Arrow: ~1 KB a call as Python objects
        function, scope, indent = None, RelaxScope(), 0
        pending_decorator = None
        # [function names, (first, one past last) index of its calls, first line] of each module pasted
        modules: list[list] = [[set(), None, None]]
        for line_no, current_indent, text in _logical_lines(source.iter_lines()):
            if text.startswith("#"):
                continue
            if text.startswith("@"):
                pending_decorator = text
                continue
            if text.startswith("def ") and "(" in text:
                if pending_decorator and _RELAX_FUNCTION.match(pending_decorator):
                    function, indent = text[4:].split("(", 1)[0].strip(), current_indent
                    if function in modules[-1][0]:
                        modules.append([set(), None, None])  # `main` again: a second module was pasted
                    modules[-1][0].add(function)
                    modules[-1][2] = modules[-1][2] or line_no
                    scope = self._params(source, line_no, text)
                else:
                    function = None
                pending_decorator = None
                continue
            pending_decorator = None
            if function is None:
                continue
            if current_indent <= indent:
                function = None
                continue
            before = len(parsed.ir_calls)
            try:
                self._statement(source, parsed, primfuncs, scope, function, line_no, text)
            except ExprError as exc:
                raise source.error(line_no, f"{exc} (column {exc.column + 1})") from None
            if len(parsed.ir_calls) > before:
                modules[-1][1] = (modules[-1][1] or (before,))[:1] + (len(parsed.ir_calls),)
        self._keep_last_module(source, parsed, modules)
        if not parsed.ir_calls:
            raise source.error(None, "no Relax calls found: expected R.* calls or R.call_tir(cls.<PrimFunc>, ...) in an @R.function")
        return parsed

    def _keep_last_module(self, source: Source, parsed: Parsed, modules: list[list]) -> None:
        with_calls = [(calls, first) for _, calls, first in modules if calls]
        if len(with_calls) < 2:
            return
        (start, end), first = with_calls[-1]
        parsed.warnings.append(f"{source.name}: {len(with_calls)} modules are printed one after the other; the last one "
                               f"(line {first}) is read, the others (line "
                               + ", line ".join(str(line) for _, line in with_calls[:-1]) + ") are skipped")
        kept = IrCallList(source)
        for index, call in enumerate(parsed.ir_calls):
            if start <= index < end:
                call.call_index = index - start
                kept.append(call)
        parsed.ir_calls = kept
        used = {c.workload_key for c in kept if c.workload_key}
        parsed.workloads = {k: w for k, w in parsed.workloads.items() if k in used}

    def _params(self, source: Source, line_no: int, text: str) -> RelaxScope:
        reader = ExprReader(text, text.index("("), subscripts=True)
        reader.expect("(")
        scope = RelaxScope()
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
        if text.startswith(("return", "with ", "cls =", "R.output", "relax.output")):
            return
        lhs, rhs = _assignment(text)
        var, annotated = None, None
        if lhs is not None:
            name, colon, type_text = lhs.partition(":")
            var = name.strip()
            if colon:
                annotated = _tensor_type(ExprReader(type_text.strip(), subscripts=True).expr())
        if rhs.startswith(_SKIP_CALLS) or not re.match(r"^(R\.|relax\.|cls\.)[\w.]+\(", rhs):
            if var is not None:
                scope[var] = annotated
            return
        reader = ExprReader(rhs, keep_call_attrs=True, subscripts=True)
        call = reader.expr()
        if call.kind != "call":
            return
        name = call.name or ""
        if name.startswith(_CALL_TIR):
            callee = call.args[0].value if call.args and call.args[0].kind == "literal" else None
            result = _call_tir_output(call)
            self._primfunc_call(parsed, primfuncs, scope, function, var, str(callee or ""), _call_tir_inputs(call), result,
                                line_no)
            scope[var] = annotated or result
        elif name.startswith("cls."):
            args = call.args
            result = scope.get(args[-1].value) if args and args[-1].kind == "literal" else None
            self._primfunc_call(parsed, primfuncs, scope, function, var, name, args[:-1], result, line_no)
        else:
            self._op_call(source, parsed, scope, function, var, annotated, call, line_no)

    def _op_call(self, source, parsed, scope, function, var, annotated, call, line_no) -> None:
        """A high-level operator call: `R.nn.conv2d(x, w, ...)` (2022: `relax.nn.conv2d`)."""
        op_name = (call.name or "").removeprefix("R.").removeprefix("relax.")
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
            attach_workload(parsed, row, workload)
        elif annotated:
            row.out_shape_logical = annotated[0]
        parsed.ir_calls.append(row)
        scope[var] = annotated

    def _primfunc_call(self, parsed, primfuncs, scope, function, var, callee, args, result, line_no) -> None:
        callee = callee.removeprefix("cls.")
        shapes = [scope.get(a.value) if a.kind == "literal" and isinstance(a.value, str) else None for a in args]
        family, buffers = primfuncs.get(callee, (None, None))
        if family is None and callee and callee.isidentifier():
            family = parse_kernel_name(callee).family  # not printed with the module: its name says it
        arg_shapes = [s[0] if s else None for s in shapes]
        if buffers and any(s is None for s in arg_shapes) and len(buffers) == len(arg_shapes) + 1:
            arg_shapes = [s if s is not None else (b[0] if b else None) for s, b in zip(arg_shapes, buffers)]
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
            attach_workload(parsed, row, from_kernel_args(
                family, [(s, d or "float32") for s, d in zip(arg_shapes + [result[0]], row.arg_dtypes + [result[1]])]))
        parsed.ir_calls.append(row)


def _holds_relax(text: str) -> bool:
    """Whether a text holds a Relax function: what a module of PrimFuncs alone lacks."""
    return "@R.function" in text or "@relax.function" in text or ("@I.ir_module" in text and "R.Tensor(" in text)


def _assignment(text: str) -> tuple[str | None, str]:
    """(target with its annotation, value) of `lv: R.Tensor(...) = R.add(...)`; the `=` is
    the first one outside brackets (`Tensor(None, "float32", ndim = 2)` holds one)."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "=" and depth == 0 and text[i + 1:i + 2] != "=" and text[i - 1:i] not in ("=", "!", "<", ">"):
            return text[:i].strip(), text[i + 1:].strip()
    return None, text


def _call_tir_inputs(call: Expr) -> list[Expr]:
    """The inputs of a call_tir: a tuple `(x, w)`, a list `[x, w]` or one variable."""
    if len(call.args) < 2:
        return []
    inputs = call.args[1]
    if inputs.kind == "tuple":
        return inputs.args
    if inputs.kind == "literal" and isinstance(inputs.value, list):
        return [Expr("literal", value=v) for v in inputs.value]
    return [inputs]


def _call_tir_output(call: Expr):
    """(shape, dtype) of a call_tir's output: `out_sinfo=R.Tensor(...)` (2023 on), or a
    positional `R.Tensor(...)`, or a shape `(1, 128)` with `dtype="float32"` (2022)."""
    out = call.attrs.get("out_ty") or call.attrs.get("out_sinfo")
    if isinstance(out, Expr):
        return _tensor_type(out)
    if len(call.args) < 3:
        return None
    shape_arg = call.args[2]
    if shape_arg.kind == "call" and shape_arg.name and shape_arg.name.endswith(("Tensor", "Buffer")):
        return _tensor_type(shape_arg)
    dtype = call.attrs.get("dtype")
    if dtype is None and len(call.args) > 3 and call.args[3].kind == "literal":
        dtype = call.args[3].value
    if shape_arg.kind == "tuple":
        return [_dim(d) for d in shape_arg.args], dtype
    if shape_arg.kind == "literal" and isinstance(shape_arg.value, list):  # [1, 128]
        return [d if isinstance(d, int) else -1 for d in shape_arg.value], dtype
    if shape_arg.kind == "call" and shape_arg.name in ("R.shape", "relax.shape") and shape_arg.args:
        dims = shape_arg.args[0]
        if dims.kind == "literal" and isinstance(dims.value, list):
            return [d if isinstance(d, int) else -1 for d in dims.value], dtype
    return None  # a shape held in a variable: known only when the program runs


def _logical_lines(lines):
    """(first line number, indentation, text) of each statement of the (number, line)
    pairs `lines`: lines joined while a bracket is open (a signature, or a call that black
    spread over lines), without the `# comments` inside or after them; a comment line of
    its own is kept as it is."""
    buffer: list[str] = []
    start, indent, depth = 0, 0, 0
    for line_no, line in lines:
        text = line.strip()
        if not buffer:
            if not text:
                continue
            if text.startswith("#"):
                yield line_no, len(line) - len(line.lstrip()), text
                continue
            start, indent, depth = line_no, len(line) - len(line.lstrip()), 0
        code = _without_comment(text).rstrip()
        if not code:
            continue  # a blank or comment line inside a statement
        buffer.append(code)
        depth += bracket_depth(code)
        if depth <= 0 or len(buffer) > 400:
            yield start, indent, " ".join(buffer)
            buffer = []
    if buffer:
        yield start, indent, " ".join(buffer)


def _without_comment(text: str) -> str:
    """The code of a line without its `# comment` (a `#` inside a string stays)."""
    if "#" not in text:
        return text
    quoted = None
    for i, ch in enumerate(text):
        if quoted:
            if ch == quoted:
                quoted = None
        elif ch in "\"'":
            quoted = ch
        elif ch == "#":
            return text[:i]
    return text


def _primfuncs(source: Source, statements) -> dict[str, tuple[str | None, list]]:
    """PrimFunc name -> (anchor family, buffer (shape, dtype) list) from @T.prim_func defs."""
    out: dict[str, tuple[str | None, list]] = {}
    current, buffers, anchor, block = None, [], None, None
    decorated = False
    for line_no, _, text in statements:
        if text.startswith("@T.prim_func"):
            decorated = True
            continue
        if decorated and (m := _PRIM_DEF.match(text)):
            if current:
                out[current] = (_family(current, anchor), buffers)
            current, anchor, block, decorated = m.group(1), None, None, False
            buffers = _buffers(source, line_no, text)
            continue
        if _RELAX_FUNCTION.match(text):
            if current:
                out[current] = (_family(current, anchor), buffers)
            current = None
        if current is None:
            continue
        if m := _SBLOCK.search(text):
            block = m.group(1) or m.group(2)
        elif anchor is None and block and (m := _REMAP.search(text)) and "R" in m.group(1):
            anchor = block
    if current:
        out[current] = (_family(current, anchor), buffers)
    return out


def _family(primfunc: str, anchor_block: str | None) -> str:
    """A PrimFunc's family from its anchor block (`conv2d_nchw` -> conv2d, `pool_max` ->
    max_pool2d); a block that names no known op (`Y`, as the MLC course writes them,
    `T_softmax_maxelem`) or no reduction at all: from the PrimFunc's name, as a kernel's."""
    if anchor_block is not None and (family := sblock_family(anchor_block)) != anchor_block:
        return family
    return parse_kernel_name(primfunc).family


def _buffers(source: Source, line_no: int, text: str) -> list:
    reader = ExprReader(text, text.index("("), subscripts=True)
    reader.expect("(")
    buffers = []
    try:
        while not reader.peek(")"):
            reader.match(re.compile(r"\w+"))
            reader.expect(":", "':' and T.Buffer(...) after a PrimFunc parameter")
            buffers.append(_tensor_type(reader.expr()))  # None for `T.handle` (shapes in T.match_buffer)
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
    """(shape, dtype) of `R.Tensor((1, 3), dtype="float32")`, `T.Buffer((T.int64(1), 3), "float32")`
    or 2022's `Tensor[(1, 3), "float32"]`; None when the shape is unknown (`Tensor[_, "float32"]`)."""
    if e is None or e.kind != "call" or not e.name or not e.name.endswith(("Tensor", "Buffer")):
        return None
    shape, first = None, e.args[0] if e.args else None
    if first is not None and first.kind == "tuple":
        shape = [_dim(d) for d in first.args]
    elif first is not None and (first.kind == "call" or (first.kind == "literal" and isinstance(first.value, int))):
        shape = [_dim(first)]  # a 1-d shape without its tuple; `_` and None say nothing
    dtype = e.attrs.get("dtype")
    if dtype is None and len(e.args) > 1 and e.args[1].kind == "literal":
        dtype = e.args[1].value
    return (shape, dtype) if shape is not None else None
