"""`relay`: Relay IR printed as text (`mod.astext()`, `print(mod["main"])`; FORMATS.md §4).

Every operator call becomes an IR call in IR order, with its attributes, the types of
its arguments (variables, `meta[relay.Constant]` weights, nested calls) and its result
type from the `/* ty=... */` annotations. Calls nested in `fn (...)` closures and in
other global functions are read too, with the function they sit in.

Fused Relay (`%3 = fn (..., Primitive=1) {...}` then `%4 = %3(%x, %w)`): the ops in a
closure have it as their function (`main/%3`) and the call names it as `primfunc`, which
links the two. Calls inside BYOC partitions (`Compiler="cutlass"`) record the compiler:
they run outside TVM, and no TVM tuner tunes them.

IR is often pasted from forums and logs: a line that is not Relay, or text glued after
a statement's `;`, is skipped with a warning. A statement that is Relay but broken (an
unclosed call, a malformed type annotation) is an error with its line.
"""

from __future__ import annotations

import json
import re

from hotdb.ingest.base import Source
from hotdb.ingest.relay_expr import Expr, ExprError, ExprReader, TensorType
from hotdb.ingest.rows import IrCallRow, Parsed
from hotdb.workload import WorkloadError, from_relay_call, relay_op_family

_DEF = re.compile(r"^def\s+(@[\w.]+)\s*(\[[^\]]*\])?\s*\(")
_CLOSURE = re.compile(r"^(%[\w.]+)\s*=\s*fn\s*(\[[^\]]*\])?\s*\(")
_BIND = re.compile(r"^(%[\w.]+)\s*=\s*")
_STATEMENT_START = re.compile(r"^(%|@|\(|meta\[|[A-Za-z_][\w.]*\()")
_HEADER = re.compile(r'^(#\[version = "[\d.]+"\]|v0\.0\.\d+)$')


class RelayText:
    name = "relay"
    role = "ir"
    reads = "Relay IR text (mod.astext(), print(mod['main'])), plain or fused, with /* ty=... */ types"
    detects = "a 'def @name(%...' line, or the '#[version = \"0.0.5\"]' header, with Relay statements"

    def sniff(self, source: Source) -> bool:
        head = source.head
        return bool(re.search(r"^\s*def @\w+\(%", head, re.M)) or (
            bool(re.search(r'^#\[version = "0\.0\.\d"\]', head, re.M)) and "%" in head)

    def parse(self, source: Source) -> Parsed:
        return _RelayParser(source).run()


class _RelayParser:
    def __init__(self, source: Source):
        self.source = source
        self.parsed = Parsed(role="ir")
        self.scopes: list[dict[str, list[TensorType]]] = []
        self.functions: list[str] = []
        self.compilers: list[str | None] = []  # Compiler="..." of each open function (BYOC)
        self.external: dict[str, str] = {}  # BYOC function name -> compiler

    def run(self) -> Parsed:
        for line_no, line in enumerate(self.source.lines, start=1):
            self.line_no = line_no
            text = line.strip()
            if not text or _HEADER.match(text) or text.startswith("//"):
                continue
            try:
                self._line(text)
            except ExprError as exc:
                raise self.source.error(line_no, f"{exc} (column {exc.column + 1 + len(line) - len(line.lstrip())})") from None
        if not self.parsed.ir_calls:
            raise self.source.error(None, "no Relay calls found: expected lines like '%0 = nn.conv2d(%data, %w, ...) /* ty=Tensor[...] */;'")
        if self.functions:
            self.warn(None, f"function {self.functions[-1]} is not closed with '}}': the IR may be truncated")
        for call in self.parsed.ir_calls:  # a BYOC function may be defined after its callers
            if call.primfunc in self.external and call.compiler is None:
                call.compiler = self.external[call.primfunc]
        return self.parsed

    def warn(self, line_no: int | None, message: str) -> None:
        where = self.source.name if line_no is None else f"{self.source.name}:{line_no}"
        self.parsed.warnings.append(f"{where}: {message}")

    # -- lines ----------------------------------------------------------------------------
    def _line(self, text: str) -> None:
        if m := _DEF.match(text):
            self._open_function(m.group(1)[1:], text, m.end() - 1)
            return
        if text.startswith("}"):
            if not self.functions:
                self.warn(self.line_no, "'}' outside any function, skipped")
                return
            self.functions.pop()
            self.scopes.pop()
            self.compilers.pop()
            rest = text[1:].lstrip(";").strip()
            if rest:
                # `};` closes a closure; `}; %4 = ...` never happens in printed IR
                self.warn(self.line_no, f"text after '}}' skipped: {rest[:40]!r}")
            return
        if not self.functions:
            self.warn(self.line_no, f"not Relay (outside any function), skipped: {text[:60]!r}")
            return
        if m := _CLOSURE.match(text):
            self._open_function(f"{self.functions[-1]}/{m.group(1)}", text, m.end() - 1)
            return
        if not _STATEMENT_START.match(text):
            self.warn(self.line_no, f"not a Relay statement, skipped: {text[:60]!r}")
            return
        self._statement(text)

    def _open_function(self, name: str, text: str, params_at: int) -> None:
        reader = ExprReader(text, params_at)
        reader.expect("(")
        scope: dict[str, list[TensorType]] = {}
        compiler = self.compilers[-1] if self.compilers else None  # closures inherit it
        while not reader.peek(")"):
            var = reader.match(re.compile(r"%[\w.]+"))
            if var is not None:
                reader.expect(":", "':' and a type after a parameter")
                scope[var] = reader.type_()
            else:  # function attributes such as Primitive=1, Compiler="cutlass"
                key = reader.match(re.compile(r"[A-Za-z_]\w*"))
                if key is None:
                    raise ExprError("expected a parameter '%name: Type' or an attribute", reader.pos)
                reader.expect("=")
                value = reader.attr_value()
                if key == "Compiler":
                    compiler = str(value)
            if not reader.peek(")"):
                reader.expect(",", "',' or ')' in a parameter list")
        reader.expect(")")
        if reader.peek("->"):
            reader.expect("->")
            reader.type_()
        reader.expect("{", "'{' opening the function body")
        self.functions.append(name)
        self.scopes.append(scope)
        self.compilers.append(compiler)
        if compiler is not None:
            self.external[name] = compiler

    def _statement(self, text: str) -> None:
        reader = ExprReader(text)
        var = None
        if m := _BIND.match(text):
            var, reader.pos = m.group(1), m.end()
        expr = reader.expr()
        if reader.peek(";"):
            reader.expect(";")
        if not reader.at_end():
            self.warn(self.line_no, f"text after the statement skipped: {reader.text[reader.pos:].strip()[:40]!r}")
        for call in _calls_post_order(expr):
            self._call(call, var if call is expr else None)
        if var is not None:
            self.scopes[-1][var] = self._type_of(expr) or [(None, None)]

    def _type_of(self, e: Expr) -> list[TensorType] | None:
        if e.ty is not None:
            return e.ty
        if e.kind == "var":
            for scope in reversed(self.scopes):
                if e.name in scope:
                    return scope[e.name]
            if m := re.fullmatch(r"(%[\w.]+)\.(\d+)", e.name):  # `%x.0`: a field of a named tuple
                return self._type_of(Expr("getitem", args=[Expr("var", name=m.group(1))], value=int(m.group(2))))
            return None
        if e.kind == "getitem":
            inner = self._type_of(e.args[0])
            if inner is not None and e.value < len(inner):
                return [inner[e.value]]
            return None
        if e.kind == "tuple":
            fields: list[TensorType] = []
            for item in e.args:
                fields.extend(self._type_of(item) or [(None, None)])
            return fields
        return None

    def _call(self, call: Expr, var: str | None) -> None:
        kinds, shapes, dtypes = [], [], []
        for arg in call.args:
            kinds.append({"var": "var", "getitem": "var", "constant": "constant", "call": "call",
                          "tuple": "tuple"}.get(arg.kind, "literal"))
            ty = self._type_of(arg) if arg.kind != "literal" else None
            if ty and len(ty) == 1:
                shapes.append(ty[0][0])
                dtypes.append(ty[0][1])
            else:
                shapes.append(None)
                dtypes.append(None)
        result = call.ty or []
        op_name = call.name or "%closure"
        row = IrCallRow(
            call_index=len(self.parsed.ir_calls),
            function_name=self.functions[-1],
            result_var=var,
            op_name=op_name,
            attrs=json.dumps(call.attrs, sort_keys=True),
            arg_kinds=kinds,
            arg_shapes=shapes,
            arg_dtypes=dtypes,
            result_shapes=[t[0] for t in result],
            result_dtypes=[t[1] for t in result],
            line_no=self.line_no,
            op_family=relay_op_family(op_name) if call.value == "op" else None,
            compiler=self.compilers[-1],
            # a call of a fused closure (%3(...)) or global function names what it calls
            primfunc=(f"{self.functions[-1]}/{op_name}" if call.value == "closure" else op_name[1:])
            if call.value in ("closure", "global") else None,
        )
        if call.value == "op":
            try:
                workload = from_relay_call(op_name, call.attrs, shapes, dtypes)
            except WorkloadError as exc:
                self.warn(self.line_no, f"cannot derive the workload of {op_name}: {exc}")
                workload = None
            if workload is not None:
                row.op_family = workload.family
                row.workload_key = self.parsed.add_workload(workload)
                row.out_shape_logical = list(workload.out)
            elif len(result) == 1 and result[0][0] is not None:
                row.out_shape_logical = result[0][0]
        self.parsed.ir_calls.append(row)


def _calls_post_order(e: Expr):
    """Calls in evaluation order: arguments before the call that uses them."""
    for arg in e.args:
        yield from _calls_post_order(arg)
    if e.kind == "call":
        yield e
