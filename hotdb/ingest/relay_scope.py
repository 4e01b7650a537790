"""The variables a Relay block binds, with their types, in memory that does not grow with
each statement: TVM prints a function's variables numbered (%0, %1, ...), and a GiB of
`print(mod["main"])` binds ~13 million of them. As a dict of fresh type lists each cost
~300 bytes (64 MiB of text: +180 MiB); here a numbered one costs 4 bytes, the index of its
type among the distinct types the block has seen."""

from __future__ import annotations

import re
from array import array

_NUMBERED = re.compile(r"%(0|[1-9][0-9]*)\Z")  # as TVM numbers them: %00 is another name
_GAP = 1 << 16  # a number further beyond the last than this is kept by name (no array of gaps)


def _copy(ty):
    """A type as the reader made it, kept apart from the rows that share its lists."""
    if ty is None:
        return None
    if isinstance(ty, tuple):  # ("fn", what a closure returns)
        return (ty[0], _copy(ty[1]))
    return [(None if shape is None else list(shape), dtype) for shape, dtype in ty]


def _key(ty):
    """What tells one type from another: the usual one tensor as a tuple, else its text."""
    if type(ty) is list and len(ty) == 1:
        shape, dtype = ty[0]
        return (None if shape is None else tuple(shape), dtype)
    return repr(ty)


class Scope:
    """Variable name -> type (a list of TensorType, None, or ("fn", type)): set with
    scope[name] = type, read with `find`."""

    __slots__ = ("_named", "_base", "_numbered", "_types", "_type_ids")

    def __init__(self) -> None:
        self._named: dict = {}
        self._base: int | None = None  # the first number bound: a closure's may start anywhere
        self._numbered = array("i")  # number - base -> index into _types; -1: not bound
        self._types: list = []
        self._type_ids: dict = {}  # _key(type) -> index into _types

    def _slot(self, name: str, growing: bool) -> int | None:
        """Where a numbered variable (`%12`) is kept in _numbered, else None."""
        m = _NUMBERED.match(name)
        if m is None:
            return None
        number = int(m.group(1))
        if self._base is None:
            if not growing:
                return None
            self._base = number
        at = number - self._base
        if at < 0 or at >= len(self._numbered) + (_GAP if growing else 0):
            return None
        if at >= len(self._numbered):
            self._numbered.extend([-1] * (at + 1 - len(self._numbered)))
        return at

    def __setitem__(self, name: str, ty) -> None:
        at = self._slot(name, growing=True)
        if at is None:
            self._named[name] = ty
            return
        key = _key(ty)
        type_id = self._type_ids.get(key)
        if type_id is None:
            type_id = self._type_ids[key] = len(self._types)
            self._types.append(_copy(ty))
        self._numbered[at] = type_id
        if self._named:
            self._named.pop(name, None)

    def find(self, name: str):
        """(the variable's type, True), or (None, False) when the block does not bind it."""
        at = self._slot(name, growing=False)
        if at is not None and self._numbered[at] >= 0:
            # shared by the variables of one type, as a kept type (memo.py) is by calls
            return self._types[self._numbered[at]], True
        if name in self._named:
            return self._named[name], True
        return None, False
