"""A reader for the expressions of Relay text: calls, arguments, attributes and types.

Enough of the grammar that `mod.astext()` prints, read by recursive descent over one
statement. Every failure raises ExprError with the column where it happened; the
caller turns that into a ParseError with file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TensorType = tuple[list[int] | None, str | None]  # (shape with -1 for unknown dims, dtype)


class ExprError(ValueError):
    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


@dataclass
class Expr:
    kind: str  # "call", "var", "global", "constant", "literal", "tuple", "getitem", "fn"
    name: str | None = None  # op name, %var, @global
    args: list["Expr"] = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    value: object = None  # literal value; tuple index for getitem
    ty: list[TensorType] | None = None  # annotated type (a tuple type has several fields)


_IDENT = re.compile(r"[A-Za-z_][\w.]*")
# `%3.0` is field 0 of `%3`; `%features.0.weight` (PyTorch names) is one variable.
# `%input_1:0` (TensorFlow tensor names) is one variable too.
_VAR = re.compile(r"%\d+(?=\.\d|[^\w.:]|$)|%[\w./]*\w(?::\d+)?")
_GLOBAL = re.compile(r"@[\w.]+")
_NUMBER = re.compile(r"-?(\d+\.\d*|\.\d+|\d+)(e[+-]?\d+)?(f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64|h|b)?(?![\w.])")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_META = re.compile(r"(?:meta|metadata)\[\"?[\w.]+\"?\]\[\d+\]")
_ARITH = re.compile(r"\*\*|//|[+*/%]|-(?!>)")  # in TVMScript shapes
_DTYPE = re.compile(r"(u?int|float|bfloat|bool|handle|e4m3_float|e5m2_float)\d*(x\d+)?")
# where a call's argument is a type (Tensor[...], a tuple of them, a bare dtype), never an expression
_TYPE_ARG = re.compile(r"\(*[ \t]*Tensor\[|(?:" + _DTYPE.pattern + r")(?=[ \t]*[,)])")


# Types read from `/* ty=... */` bodies: a model repeats a few hundred of them over
# millions of calls, and reading one is a third of the time a call takes. Copies are
# handed out (a shape is a list).
_TYPES: dict[str, list[TensorType]] = {}
_TYPES_KEPT = 4096
_BLANKS = (" ", "\t")
_WS = re.compile(r"[ \t]*")
# A list attribute of integers only (`padding=[1, 1, 1, 1]`), read at once
_INT_LIST = re.compile(r"\[[ \t]*((?:-?\d+[ \t]*,[ \t]*)*-?\d+[ \t]*)?\]")


class ExprReader:
    def __init__(self, text: str, pos: int = 0, keep_call_attrs: bool = False, subscripts: bool = False):
        self.text = text
        self.pos = pos
        # Relax attributes may be calls (out_ty=R.Tensor(...)): keep them as Expr then.
        self.keep_call_attrs = keep_call_attrs
        # TVMScript of 2022 wrote types as subscripts (Tensor[(1, 3), "float32"], T.Buffer[...]):
        # read `Name[a, b]` as a call of Name then.
        self.subscripts = subscripts

    # -- low level --------------------------------------------------------------------
    # Most tokens follow no blank: one startswith asks, and the blanks are skipped only then
    # (this is called ~40 times per statement)
    def skip_ws(self) -> None:
        if self.text.startswith(_BLANKS, self.pos):
            self.pos = _WS.match(self.text, self.pos).end()

    def peek(self, s: str) -> bool:
        if self.text.startswith(_BLANKS, self.pos):
            self.pos = _WS.match(self.text, self.pos).end()
        return self.text.startswith(s, self.pos)

    def expect(self, s: str, what: str | None = None) -> None:
        self.skip_ws()
        if not self.text.startswith(s, self.pos):
            found = self.text[self.pos:self.pos + 12] or "end of line"
            raise ExprError(f"expected {what or repr(s)}, found {found!r}", self.pos)
        self.pos += len(s)

    def match(self, pattern: re.Pattern[str]) -> str | None:
        self.skip_ws()
        m = pattern.match(self.text, self.pos)
        if not m:
            return None
        self.pos = m.end()
        return m.group(0)

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.text)

    # -- types ------------------------------------------------------------------------
    def type_annotation(self) -> list[TensorType] | None:
        """An optional `/* ty=... */` after an expression."""
        self.skip_ws()
        if not self.text.startswith("/*", self.pos):
            return None
        close = self.text.find("*/", self.pos)
        if close < 0:
            raise ExprError("unclosed comment: expected '*/' after the type annotation", self.pos)
        body = self.text[self.pos + 2:close].strip()
        start = self.pos
        self.pos = close + 2
        if not body.startswith("ty="):
            return None  # some other comment
        known = _TYPES.get(body)
        if known is None:
            known = _TYPES[body] = self._annotated(body, start)
            if len(_TYPES) > _TYPES_KEPT:  # a text of many distinct types: keep the recent ones
                del _TYPES[next(iter(_TYPES))]
        return [(None if shape is None else list(shape), dtype) for shape, dtype in known]

    @staticmethod
    def _annotated(body: str, start: int) -> list[TensorType]:
        inner = ExprReader(body[3:])
        try:
            ty = inner.type_()
            if not inner.at_end():
                raise ExprError(f"unexpected text after the type: {inner.text[inner.pos:][:20]!r}", inner.pos)
        except ExprError as exc:
            raise ExprError(f"broken type annotation /* {body} */: {exc}", start) from None
        return ty

    def type_annotations(self) -> list[TensorType] | None:
        """Any number of `/* ty=... */` (0.6 prints constants' types twice): the first one."""
        first = None
        while self.peek("/*"):
            ty = self.type_annotation()
            first = first if first is not None else ty
        return first

    def type_(self) -> list[TensorType]:
        self.skip_ws()
        if self.peek("("):
            self.expect("(")
            fields: list[TensorType] = []
            while not self.peek(")"):
                fields.extend(self.type_())
                if not self.peek(")"):
                    self.expect(",", "',' or ')' in a tuple type")
            self.expect(")")
            return fields
        if self.match(re.compile(r"fn(?=\s*[(\[])")) is not None:  # a function type: no tensor of its own
            if self.peek("["):
                self._skip_balanced("[", "]")
            self.type_()
            if self.peek("->"):
                self.expect("->")
                self.type_()
            return [(None, None)]
        if self.peek("Tensor["):
            self.expect("Tensor[")
            shape = self.shape()
            dtype = None
            if self.peek(","):
                self.expect(",")
                dtype = self.match(_DTYPE)
                if dtype is None:
                    raise ExprError("expected a dtype such as float32", self.pos)
            self.expect("]", "']' closing Tensor[...]")
            return [(shape, dtype)]
        dtype = self.match(_DTYPE)
        if dtype is not None:
            return [([], dtype)]
        name = self.match(_IDENT)
        if name is not None:  # storage, function or ADT types: no tensor shape
            if self.peek("["):
                self._skip_balanced("[", "]")
            return [(None, None)]
        raise ExprError("expected a type such as Tensor[(1, 3, 224, 224), float32]", self.pos)

    def shape(self) -> list[int]:
        self.expect("(", "'(' opening a shape")
        dims: list[int] = []
        while not self.peek(")"):
            self.skip_ws()
            number = self.match(re.compile(r"\d+"))
            if number is not None:
                dims.append(int(number))
            elif self.match(re.compile(r"\?|[A-Za-z_]\w*")) is not None:
                dims.append(-1)  # dynamic or symbolic dimension
            else:
                raise ExprError("expected a dimension", self.pos)
            if not self.peek(")"):
                self.expect(",", "',' or ')' in a shape")
        self.expect(")")
        return dims

    def _skip_balanced(self, open_: str, close: str) -> None:
        depth = 0
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            if ch == open_:
                depth += 1
            elif ch == close:
                depth -= 1
                if depth == 0:
                    return
        raise ExprError(f"unbalanced {open_!r}", self.pos)

    # -- expressions ------------------------------------------------------------------
    def expr(self) -> Expr:
        e = self._primary()
        while True:
            if self.peek("."):
                save = self.pos
                self.expect(".")
                index = self.match(re.compile(r"\d+"))
                if index is None:
                    self.pos = save
                    break
                e = Expr("getitem", args=[e], value=int(index))
            elif self.peek("(") and e.kind in ("var", "global", "getitem"):
                args, attrs = self.arguments()
                e = Expr("call", name=e.name if e.kind != "getitem" else None, args=args, attrs=attrs,
                         value="closure" if e.kind == "var" else e.kind)
            else:
                break
        e.ty = self.type_annotations()
        if self.subscripts and self.match(_ARITH) is not None:
            self.expr()  # a dimension computed from symbols (`n * 4`): known when the program runs
            return Expr("literal", value=None)
        return e

    def _primary(self) -> Expr:
        self.skip_ws()
        if self.pos >= len(self.text):
            raise ExprError("expected an expression, found end of line", self.pos)
        if (var := self.match(_VAR)) is not None:
            return Expr("var", name=var)
        if (glob := self.match(_GLOBAL)) is not None:
            return Expr("global", name=glob)
        if (meta := self.match(_META)) is not None:
            return Expr("constant", name=meta)
        if (s := self.match(_STRING)) is not None:
            return Expr("literal", value=s[1:-1])
        if self.peek("["):
            return Expr("literal", value=self.list_value())
        if self.peek("("):
            self.expect("(")
            items = []
            while not self.peek(")"):
                items.append(self.expr())
                if not self.peek(")"):
                    self.expect(",", "',' or ')' in a tuple")
            self.expect(")")
            return Expr("tuple", args=items)
        if (number := self.match(_NUMBER)) is not None:
            return Expr("literal", value=_number(number))
        if (ident := self.match(_IDENT)) is not None:
            if ident in ("True", "False"):
                return Expr("literal", value=ident == "True")
            if ident == "None":
                return Expr("literal", value=None)
            if self.peek("("):
                args, attrs = self.arguments()
                return Expr("call", name=ident, args=args, attrs=attrs, value="op")
            if self.subscripts and self.peek("["):
                self.expect("[")
                items = []
                while not self.peek("]"):
                    items.append(self.expr())
                    if not self.peek("]"):
                        self.expect(",", "',' or ']' in a subscript")
                self.expect("]")
                return Expr("call", name=ident, args=items, value="subscript")
            return Expr("literal", value=ident)
        raise ExprError(f"unexpected {self.text[self.pos:self.pos + 12]!r}", self.pos)

    def arguments(self) -> tuple[list[Expr], dict]:
        self.expect("(")
        args: list[Expr] = []
        attrs: dict = {}
        type_args: list[list[TensorType]] = []
        while not self.peek(")"):
            self.skip_ws()
            key = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)").match(self.text, self.pos)
            if key:
                self.pos = key.end()
                attrs[key.group(1)] = self.attr_value()
            elif not self.subscripts and (ty := self._type_argument()) is not None:
                type_args.append(ty)
            else:
                args.append(self.expr())
            if not self.peek(")"):
                self.expect(",", "',' or ')' in an argument list")
        self.expect(")")
        if len(type_args) == len(args):  # one per operand: a pasted fragment's undeclared %81 is typed so
            for arg, ty in zip(args, type_args):
                if arg.ty is None:
                    arg.ty = ty
        return args, attrs

    def _type_argument(self) -> list[TensorType] | None:
        """A call's type argument, read, if one is next. Relay's printer writes the type
        arguments of a call to an operator (its operands' types) after the operands:
        `nn.conv2d(%1, %w, Tensor[(1, 512, 7, 7), float16], Tensor[(512, 512, 3, 3),
        float16], padding=...)`, `multiply(%2, 9, Tensor[(1, 5), int32], int32)`."""
        self.skip_ws()
        if _TYPE_ARG.match(self.text, self.pos):
            return self.type_()
        return None

    def attr_value(self):
        self.skip_ws()
        if self.peek("["):
            return self.list_value()
        e = self.expr()
        if e.kind == "literal":
            return e.value
        if e.kind == "call" and self.keep_call_attrs:
            return e
        return e.name

    def list_value(self) -> list:
        self.skip_ws()
        if m := _INT_LIST.match(self.text, self.pos):
            self.pos = m.end()
            return [int(item) for item in m.group(1).split(",")] if m.group(1) else []
        self.expect("[")
        items = []
        while not self.peek("]"):
            items.append(self.attr_value())
            if not self.peek("]"):
                self.expect(",", "',' or ']' in a list")
        self.expect("]")
        return items


def _number(text: str):
    core = re.match(r"-?(\d+\.\d*|\.\d+|\d+)(e[+-]?\d+)?", text).group(0)
    return float(core) if any(c in core for c in ".e") or text.endswith(("f", "f16", "f32", "f64", "h")) else int(core)
