"""`relay`: Relay IR printed as text (`mod.astext()`, `print(mod["main"])`).

Every operator call becomes an IR call in IR order, with its attributes, the types of
its arguments (variables, `meta[relay.Constant]` weights, nested calls) and its result
type from the `/* ty=... */` annotations. Calls nested in `fn (...)` closures, in `if`
branches and in other global functions are read too, with the function they sit in.

What people print and paste is read as well as what `astext()` writes:

* a top-level `fn (%data: ...) { ... }` (TVM 0.6/0.7's `print(mod["main"])`) is `main`;
* parameters without types, or with a type *and* an annotation (0.10-0.13);
* statements and signatures spread over several lines (tuple return types);
* `type List[A] { ... }` prelude definitions, `if (...) { } else { }`, `?` dimensions;
* no annotations at all: result types are inferred from the typed inputs and the
  attributes (hotdb/workload/type_relations.py), so that convolutions get workloads;
* prose around the IR, glued after a `;`, a `v0.0.4` header after a sentence, and two
  modules pasted one after the other (the last complete one is kept, with a warning);
* statements pasted without their function (`%12 = nn.conv2d(...) /* ty=... */;` lines
  alone): read as the body of `main`;
* IR as a page renders it: a function glued to the sentence before it, statements joined
  on one line, a last statement cut off where the paste ends (skipped, with a warning).

Fused Relay (`%3 = fn (..., Primitive=1) {...}` then `%4 = %3(%x, %w)`): the ops in a
closure have it as their function (`main/%3`) and the call names it as `primfunc`. Calls
inside BYOC partitions (`Compiler="cutlass"`) record the compiler: no TVM tuner tunes them.

A statement that is Relay but broken (an unclosed call, a malformed type annotation) is
an error with its line and column.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from hotdb.ingest.ir import relay_blocks
from hotdb.ingest.ir.expr import Expr, ExprError, ExprReader, TensorType
from hotdb.ingest.ir.memo import Memo
from hotdb.ingest.ir.relay_blocks import DEF, GLUED, HEADER, HEADLESS, MAX_STATEMENT_LINES, TYPE_DEF
from hotdb.ingest.ir.scope import Scope
from hotdb.ingest.lines import with_last
from hotdb.ingest.notes import Warnings
from hotdb.ingest.source import Source
from hotdb.ingest.text import LineRuns, bracket_depth
from hotdb.rows import IrCallList, IrCallRow, Parsed
from hotdb.rows.derive import attach_workload
from hotdb.workload import WorkloadError, from_relay_call, relay_op_family
from hotdb.workload.type_relations import infer

_TOP_FN = re.compile(r"^fn\s*(\[[^\]]*\])?\s*\(")
_CLOSURE = re.compile(r"^(%[\w.:]+)\s*=\s*fn\s*(\[[^\]]*\])?\s*\(")
_IF = re.compile(r"^(?:(%[\w.:]+)\s*=\s*)?if\s*\(")
_BIND = re.compile(r"^(?:let\s+)?(%[\w.:]+)\s*(?::[^=]+)?=\s*")
_FREE_VAR = re.compile(r"^free_var\s+(%[\w.:]+)\s*:")
_STATEMENT_START = re.compile(r"^(let\s+%|%|@|\(|meta\[|[A-Za-z_][\w.]*\()")
_META_NOTE = re.compile(r"^//|^/\*.*\*/$")
# What may follow a `;` or a brace on the same line and still be Relay.
_MORE = re.compile(r"^(?:}|%|let\s+%|def\s+@|fn\s*\(|free_var\s|//|[A-Za-z_][\w.]*\((?:%|meta\[))")
# A model repeats its few hundred distinct calls: types and workloads are inferred once
# each (half the time a call took); callers only read what these return
_INFER = Memo(infer)
_WORKLOAD = Memo(from_relay_call, WorkloadError)
_CONV_DENSE = ("nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.dense", "nn.batch_matmul", "nn.matmul",
               "nn.contrib_conv2d_NCHWc", "nn.conv2d_transpose")


_PARAM = re.compile(r"%[\w./]*\w(?::\d+)?")


class RelayText:
    name = "relay"
    role = "ir"
    reads = ("Relay IR text (mod.astext(), print(mod['main']), print(func)): typed or untyped, "
             "plain or fused, pasted with prose around it")
    detects = ("a 'def @name(%...' (also after a sentence) or top-level 'fn (%...' line, or the "
               "'#[version = \"0.0.5\"]' header, with Relay statements; or lines of '%N = op(...);' statements alone")

    def sniff(self, source: Source) -> bool:
        head = source.head
        if re.search(r"(?:^|[^\w@])def @\w+\s*\(\s*%", head, re.M):  # also glued to a sentence
            return True
        if re.search(r"^\s*fn\s*\(\s*%[\w.:]+", head, re.M) and re.search(r"^\s*(%\d+ = )?[a-z_][\w.]*\(%", head, re.M):
            return True
        if re.search(r'^\s*#\[version = "0\.0\.\d"\]', head, re.M) and "%" in head:
            return True
        # statements pasted without their function
        return sum(1 for line in head.splitlines() if HEADLESS.match(line.strip()) and line.rstrip().endswith(";")) >= 2

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        return relay_blocks.blocks(lines)

    def parse(self, source: Source) -> Parsed:
        return _RelayParser(source).run()


@dataclass
class _Block:
    """An open `{`: a function (global or closure) or an `if`/`else` branch."""

    kind: str  # "function" | "closure" | "if" | "else" | "type"
    name: str  # the function the calls inside belong to
    scope: Scope = field(default_factory=Scope)
    compiler: str | None = None
    var: str | None = None  # the variable a closure or `if` binds
    returns: list[TensorType] | None = None
    last: list[TensorType] | None = None  # type of the block's last expression
    headless: bool = False  # statements pasted without their function: no '{' was read


@dataclass(eq=False)
class _Module:
    """A module as read: its calls (None once a later module makes them moot, see
    `_RelayParser._new_module`), and what the warnings say of them, counted as they come."""

    first_line: int
    calls: IrCallList | None
    functions: set[str] = field(default_factory=set)
    complete: bool = False  # every function it opened was closed
    headless: bool = False
    count: int = 0  # calls read
    anchors: int = 0  # convolution/dense calls not in a BYOC partition ...
    missing: int = 0  # ... of which have no workload
    first_missing: IrCallRow | None = None
    workload_keys: set[str] = field(default_factory=set)


class _RelayParser:
    def __init__(self, source: Source):
        self.source = source
        self.parsed = Parsed(role="ir")
        self.warnings = Warnings(source.name)
        self.blocks: list[_Block] = []
        self.global_types: dict[str, list[TensorType] | None] = {}  # what a global function returns
        self.external: dict[str, str] = {}  # BYOC function name -> compiler
        self.modules: list[_Module] = []
        self.outside = LineRuns()  # lines that are not Relay (prose around the IR)
        self.untyped = 0  # op calls printed without a type annotation
        self.inferred = 0  # ... whose result type hotdb inferred
        self.indent = 0  # columns before the current statement's first line
        self.piece = ""  # the part of the line being read

    def run(self) -> Parsed:
        for (line_no, indent, text), last in with_last(_statements(self.source.iter_lines())):
            self.line_no, self.indent = line_no, indent
            try:
                self._line(text)
            except ExprError as exc:
                if last and bracket_depth(text) > 0 and any(m.count for m in self.modules):
                    # the paste ends inside a statement: what came before is whole
                    self.warnings.add("cut", line_no, f"the last statement is cut off where the text ends, skipped: "
                                      f"{self.piece[:40]!r}")
                    break
                raise self.source.error(line_no, f"{exc} (column {exc.column + 1})") from None
        if self.blocks and self.blocks[-1].kind != "type" and not self.blocks[0].headless:
            self.warnings.add("unclosed", None, f"function {self.blocks[0].name} is not closed with '}}': the IR may be truncated")
        if not self.modules or not any(m.count for m in self.modules):
            raise self.source.error(None, "no Relay calls found: expected lines like '%0 = nn.conv2d(%data, %w, ...) /* ty=Tensor[...] */;'")
        kept = self._kept()
        if self.external:  # BYOC functions defined after their callers
            kept.calls.fill_compilers(self.external)
        self.parsed.ir_calls = kept.calls
        self.parsed.workloads = {k: w for k, w in self.parsed.workloads.items() if k in kept.workload_keys}
        self._summarise(kept)
        self.parsed.warnings = self.warnings.lines()
        return self.parsed

    def _kept(self) -> _Module:
        """The module read: the last complete one (a page or a paste cuts the last one short
        more often than the first), else the last with calls; the others are said."""
        with_calls = [m for m in self.modules if m.count]
        complete = [m for m in with_calls if m.complete]
        kept = (complete or with_calls)[-1]
        dropped = [m for m in with_calls if m is not kept]
        if dropped:
            lines = ", ".join(f"line {m.first_line}" + ("" if m.complete else " (cut off)") for m in dropped)
            which = "last" if kept is with_calls[-1] else "last complete"
            self.warnings.add("modules", None, f"{len(self.modules)} modules are printed one after the other; the {which} one "
                              f"(line {kept.first_line}) is read, the others ({lines}) are skipped")
        if kept.headless:
            self.warnings.add("headless", kept.first_line, "statements without their function ('def @main(...) {'): "
                              "read as the body of main")
        return kept

    def _summarise(self, kept: _Module) -> None:
        if self.outside:
            n = len(self.outside)
            self.warnings.add("outside", None, f"{n} {'line is' if n == 1 else 'lines are'} not Relay and "
                              f"{'was' if n == 1 else 'were'} skipped (line{'' if n == 1 else 's'} {self.outside})")
        if self.untyped:
            self.warnings.add("inferred", None, f"{self.untyped} calls have no type annotation; the result types of "
                              f"{self.inferred} of them were inferred from their inputs and attributes")
        if kept.missing:
            example = kept.first_missing
            self.warnings.add("no-workload", None, f"{kept.missing} of {kept.anchors} convolution/dense/batch_matmul calls "
                              f"have no workload: their argument shapes are not known (first at line {example.line_no}: "
                              f"{example.op_name} with arguments {_shapes_text(example.arg_shapes)})")

    # -- lines ----------------------------------------------------------------------------
    def _line(self, text: str) -> None:
        """A logical line; a page may have put several statements, or a whole function, on it."""
        while text:
            self.piece = text.strip()
            text = self._piece(self.piece)

    def _piece(self, text: str) -> str:
        """Read the line's first statement, header or brace; return what follows it."""
        if not text or HEADER.match(text):
            return ""
        top = self.blocks[-1] if self.blocks else None
        if top is not None and top.kind == "type":
            if text.startswith("}"):
                self.blocks.pop()
            return ""
        if top is not None and (DEF.match(text) or (_TOP_FN.match(text) and (self.indent == 0 or top.headless))):
            self._cut_short()  # a new module while one is open: the open one was cut off
            top = None
        if top is None:
            return self._top_level(text)
        if text.startswith("}"):
            return self._close(text)
        if _META_NOTE.match(text):
            return ""
        if m := _CLOSURE.match(text):
            return self._open_function(f"{top.name}/{m.group(1)}", text, m.end() - 1, "closure", var=m.group(1))
        if m := _IF.match(text):
            return self._open_if(text, m)
        if m := _FREE_VAR.match(text):
            reader = ExprReader(text, m.end())
            top.scope[m.group(1)] = reader.type_()
            return ""
        if not _STATEMENT_START.match(text):
            self.outside.add(self.line_no)
            return ""
        return self._statement(text)

    def _top_level(self, text: str) -> str:
        if m := DEF.match(text):
            return self._open_function(m.group(1)[1:], text, m.end() - 1, "function")
        if m := _TOP_FN.match(text):
            return self._open_function("main", text, m.end() - 1, "function")
        if TYPE_DEF.match(text) and text.rstrip().endswith("{"):
            self.blocks.append(_Block("type", "type"))
            return ""
        if HEADLESS.match(text):
            self._new_module(headless=True)
            self.modules[-1].functions.add("main")
            self.blocks.append(_Block("function", "main", headless=True))
            return text
        if (m := GLUED.search(text)) and m.start() > 0:
            self.warnings.add("glued", self.line_no, f"text before the IR skipped: {text[:m.start()].strip()[-40:]!r}")
            return text[m.start():]
        if _META_NOTE.match(text):
            return ""
        if text.startswith("}"):
            self.warnings.add("stray-brace", self.line_no, "'}' outside any function, skipped")
        else:
            self.outside.add(self.line_no)
        return ""

    def _cut_short(self) -> None:
        """Close every open block: the module they belong to ends here, unfinished."""
        self.blocks.clear()
        if self.modules:
            self.modules[-1].complete = False

    def _open_function(self, name: str, text: str, params_at: int, kind: str, var: str | None = None) -> str:
        reader = ExprReader(text, params_at)
        reader.expect("(")
        scope = Scope()
        compiler = self.blocks[-1].compiler if self.blocks else None  # closures inherit it
        while not reader.peek(")"):
            if reader.at_end():  # a paste or a page that kept only the first lines of a signature
                raise ExprError("the text ends inside the function's parameter list (the signature was cut off)", reader.pos)
            # TensorFlow's names keep their scopes: %bert/embeddings/Gather/resource
            param = reader.match(_PARAM)
            if param is not None:
                scope[param] = None  # untyped parameter (print(func) before type inference)
                if reader.peek(":"):
                    reader.expect(":")
                    scope[param] = reader.type_()
                    reader.type_annotations()
                elif not reader.peek(",") and not reader.peek(")"):
                    raise ExprError(f"expected ':' and a type after parameter {param} (or ',' if it has none)", reader.pos)
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
        returns = None
        if reader.peek("->"):
            reader.expect("->")
            returns = reader.type_()
        reader.expect("{", "'{' opening the function body")
        if kind == "function":
            if not self.modules or name in self.modules[-1].functions or self.modules[-1].headless:
                self._new_module()  # `main` again: a second module was pasted
            self.modules[-1].functions.add(name)
            self.modules[-1].complete = False
            self.global_types[name] = returns
        self.blocks.append(_Block(kind, name, scope, compiler, var, returns))
        if compiler is not None:
            self.external[name] = compiler
        return reader.text[reader.pos:]

    def _open_if(self, text: str, m: re.Match) -> str:
        reader = ExprReader(text, m.end() - 1)
        reader.expect("(")
        condition = reader.expr()
        reader.expect(")", "')' closing the if condition")
        reader.expect("{", "'{' opening the if branch")
        top = self.blocks[-1]
        for call in _calls_post_order(condition):
            self._call(call, None)
        self.blocks.append(_Block("if", top.name, Scope(), top.compiler, m.group(1)))
        return reader.text[reader.pos:]

    def _close(self, text: str) -> str:
        block = self.blocks.pop()
        reader = ExprReader(text, 1)
        reader.type_annotations()
        if reader.peek("else"):
            reader.expect("else")
            reader.expect("{", "'{' opening the else branch")
            self.blocks.append(_Block("else", block.name, Scope(), block.compiler, block.var, last=block.last))
            return reader.text[reader.pos:]
        if reader.peek(";"):
            reader.expect(";")
        result = block.returns or block.last
        if block.kind == "function":
            if self.global_types.get(block.name) is None:
                self.global_types[block.name] = result
            if not self.blocks and self.modules:
                self.modules[-1].complete = not block.headless
        elif block.var is not None and self.blocks:
            # a closure's variable stands for the closure; an if's for its value
            self.blocks[-1].scope[block.var] = ("fn", result) if block.kind == "closure" else result
            self.blocks[-1].last = None
        return self._rest(reader, "text after '}' skipped")

    def _statement(self, text: str) -> str:
        reader = ExprReader(text)
        var = None
        if m := _BIND.match(text):
            var, reader.pos = m.group(1), m.end()
        expr = reader.expr()
        if reader.peek(";"):
            reader.expect(";")
        for call in _calls_post_order(expr):
            self._call(call, var if call is expr else None)
        ty = self._type_of(expr)
        if var is not None:
            self.blocks[-1].scope[var] = ty
        self.blocks[-1].last = ty
        return self._rest(reader, "text after the statement skipped")

    def _rest(self, reader: ExprReader, skipped: str) -> str:
        """What follows on the line: more Relay (a page joined the lines), or prose glued
        to the code, which is said and skipped."""
        rest = reader.text[reader.pos:].strip()
        if rest and not _MORE.match(rest):
            self.warnings.add("glued", self.line_no, f"{skipped}: {rest[:40]!r}")
            return ""
        return rest

    # -- types ----------------------------------------------------------------------------
    def _lookup(self, name: str):
        for block in reversed(self.blocks):
            ty, found = block.scope.find(name)
            if found:
                return ty, True
        return None, False

    def _type_of(self, e: Expr) -> list[TensorType] | None:
        if e.ty is not None:
            return e.ty
        if e.kind == "var":
            ty, found = self._lookup(e.name)
            if found:
                return None if isinstance(ty, tuple) else ty
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

    def _callee_type(self, call: Expr) -> list[TensorType] | None:
        if call.value == "global":
            return self.global_types.get(call.name[1:])
        if call.value == "closure":
            ty, _ = self._lookup(call.name)
            return ty[1] if isinstance(ty, tuple) else None
        return None

    # -- calls ----------------------------------------------------------------------------
    def _call(self, call: Expr, var: str | None) -> None:
        arg_types = [self._type_of(arg) if arg.kind != "literal" else None for arg in call.args]
        op_name = call.name or "%closure"
        attrs = json.dumps(_plain(call.attrs), sort_keys=True)
        key = (op_name, attrs, repr(arg_types))
        if call.ty is None:
            if call.value == "op":
                call.ty, arg_types = _INFER(key, op_name, call.attrs, arg_types)
                self.untyped += 1
                self.inferred += call.ty is not None
            else:
                call.ty = self._callee_type(call)
        elif call.value == "op" and op_name in _CONV_DENSE:
            _, arg_types = _INFER(key, op_name, call.attrs, arg_types)  # an untyped weight, from the attributes
        kinds, shapes, dtypes = [], [], []
        for arg, ty in zip(call.args, arg_types):
            kinds.append({"var": "var", "getitem": "var", "constant": "constant", "call": "call",
                          "tuple": "tuple"}.get(arg.kind, "literal"))
            single = ty[0] if ty and len(ty) == 1 else (None, None)
            shapes.append(single[0])
            dtypes.append(single[1])
        result = call.ty or []
        block = self.blocks[-1]
        row = IrCallRow(
            call_index=0,
            function_name=block.name,
            result_var=var,
            op_name=op_name,
            attrs=attrs,
            arg_kinds=kinds,
            arg_shapes=shapes,
            arg_dtypes=dtypes,
            result_shapes=[t[0] for t in result],
            result_dtypes=[t[1] for t in result],
            line_no=self.line_no,
            op_family=relay_op_family(op_name) if call.value == "op" else None,
            compiler=block.compiler,
            # a call of a fused closure (%3(...)) or global function names what it calls
            primfunc=(f"{block.name}/{op_name}" if call.value == "closure" else op_name[1:])
            if call.value in ("closure", "global") else None,
        )
        if call.value == "op":
            try:
                workload = _WORKLOAD((op_name, attrs, repr(shapes), repr(dtypes)), op_name, call.attrs, shapes, dtypes)
            except WorkloadError as exc:
                self.warnings.add("workload", self.line_no, f"cannot derive the workload of {op_name}: {exc}")
                workload = None
            if workload is not None:
                attach_workload(self.parsed, row, workload)
            elif len(result) == 1 and result[0][0] is not None:
                row.out_shape_logical = result[0][0]
        self._keep(row)

    def _keep(self, row: IrCallRow) -> None:
        """The call, numbered in its module, and what the warnings will say of it."""
        module = self.modules[-1]
        row.call_index = module.count
        module.count += 1
        module.calls.append(row)
        if row.workload_key:
            module.workload_keys.add(row.workload_key)
        if row.op_name in _CONV_DENSE and row.compiler is None:
            module.anchors += 1
            if row.workload_key is None:
                module.missing += 1
                module.first_missing = module.first_missing or row

    def _new_module(self, headless: bool = False) -> None:
        """A module begins: those before it are read, and only the one `_kept` may still
        choose keeps its calls (a text of many modules holds at most two)."""
        finished = [m for m in self.modules if m.count]
        complete = [m for m in finished if m.complete]
        keep = (complete or finished)[-1:]
        for module in finished:
            if module not in keep:  # identity: modules are compared as objects (eq=False)
                module.calls = None
        self.modules.append(_Module(self.line_no, IrCallList(self.source), headless=headless))


def _statements(lines):
    """(first line number, its indentation, text) of each logical line of the (number,
    line) pairs: lines joined while a bracket is open, so that a statement or signature
    printed over several lines is one."""
    buffer: list[str] = []
    start, indent, depth = 0, 0, 0
    for line_no, line in lines:
        text = line.strip()
        if not buffer:
            if not text:
                continue
            start, indent, depth = line_no, len(line) - len(line.lstrip()), 0
        elif re.match(r"^(%[\w.:]+\s*=|def\s|}|fn\s*\()", text) or line_no - start >= MAX_STATEMENT_LINES:
            yield start, indent, " ".join(buffer)  # a new statement: the open one is broken (reported where it began)
            buffer, start, indent, depth = [], line_no, len(line) - len(line.lstrip()), 0
        buffer.append(text)
        depth += bracket_depth(text)
        if depth <= 0 or not _opens_statement(buffer[0]):
            yield start, indent, " ".join(buffer)
            buffer = []
    if buffer:
        yield start, indent, " ".join(buffer)


def _opens_statement(text: str) -> bool:
    """Only Relay joins lines: a sentence with an open parenthesis stays one line, unless
    a function or statement is glued to its end."""
    return bool(re.match(r"^(def\s|fn\s*[(\[]|%|@|let\s|type\s|[A-Za-z_][\w.]*\(|\()", text) or GLUED.search(text))


def _calls_post_order(e: Expr):
    """Calls in evaluation order: arguments before the call that uses them."""
    for arg in e.args:
        yield from _calls_post_order(arg)
    if e.kind == "call":
        yield e


def _plain(attrs: dict) -> dict:
    return {k: (v.name if isinstance(v, Expr) else v) for k, v in attrs.items()}


def _shapes_text(shapes: list) -> str:
    return ", ".join("?" if s is None else "(" + ", ".join("?" if d < 0 else str(d) for d in s) + ")" for s in shapes)
