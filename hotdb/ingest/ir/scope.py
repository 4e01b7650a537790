"""The variables a Relay block binds, with their types, in memory that does not grow with
each statement: TVM prints a function's variables numbered (%0, %1, ...), and a GiB of
`print(mod["main"])` binds ~13 million of them. As a dict of fresh type lists each cost
~300 bytes (64 MiB of text: +180 MiB); here a numbered one costs 4 bytes, the index of its
type among the distinct types the block has seen. Relax's TVMScript numbers its
bindings too (`lv`, `lv1`, ...): RelaxScope keeps them so."""

from __future__ import annotations

import re
from array import array

_NUMBERED = re.compile(r"(%)(0|[1-9][0-9]*)\Z")  # as TVM numbers them: %00 is another name
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
    scope[name] = type, read with `find`. A numbered name (NUMBERED: its prefix and
    number) is kept in its prefix's array of type indexes."""

    __slots__ = ("_named", "_runs", "_types", "_type_ids")

    NUMBERED = _NUMBERED

    def __init__(self) -> None:
        self._named: dict = {}
        # prefix -> (the first number bound: a closure's may start anywhere, array of
        # number - base -> index into _types; -1: not bound)
        self._runs: dict[str, tuple[int, array]] = {}
        self._types: list = []
        self._type_ids: dict = {}  # _key(type) -> index into _types

    _copy = staticmethod(_copy)
    _key = staticmethod(_key)

    def _slot(self, name, growing: bool) -> tuple[array, int] | None:
        """Where a numbered variable (`%12`) is kept: its run's array and index, else None."""
        m = self.NUMBERED.match(name) if type(name) is str else None
        if m is None:
            return None
        prefix, number = m.group(1), int(m.group(2))
        run = self._runs.get(prefix)
        if run is None:
            if not growing:
                return None
            run = self._runs[prefix] = (number, array("i"))
        base, numbered = run
        at = number - base
        if at < 0 or at >= len(numbered) + (_GAP if growing else 0):
            return None
        if at >= len(numbered):
            numbered.extend([-1] * (at + 1 - len(numbered)))
        return numbered, at

    def __setitem__(self, name: str, ty) -> None:
        slot = self._slot(name, growing=True)
        if slot is None:
            self._named[name] = ty
            return
        key = self._key(ty)
        type_id = self._type_ids.get(key)
        if type_id is None:
            type_id = self._type_ids[key] = len(self._types)
            self._types.append(self._copy(ty))
        slot[0][slot[1]] = type_id
        if self._named:
            self._named.pop(name, None)

    def find(self, name: str):
        """(the variable's type, True), or (None, False) when the block does not bind it."""
        slot = self._slot(name, growing=False)
        if slot is not None and slot[0][slot[1]] >= 0:
            # shared by the variables of one type, as a kept type (memo.py) is by calls
            return self._types[slot[0][slot[1]]], True
        if name in self._named:
            return self._named[name], True
        return None, False

    def get(self, name, default=None):
        """The variable's type, or `default` when the block does not bind it (as dict.get)."""
        ty, found = self.find(name)
        return ty if found else default


class RelaxScope(Scope):
    """A Relax function's bindings (relax.py): name -> (shape, dtype) or None. TVMScript
    numbers them after a prefix (`lv`, `lv1`, ... `lv13000000`, `gv1`, `alloc2`)."""

    __slots__ = ()

    NUMBERED = re.compile(r"([A-Za-z_]\w*?)(0|[1-9][0-9]*)\Z")

    @staticmethod
    def _copy(ty):
        return None if ty is None else (None if ty[0] is None else list(ty[0]), ty[1])

    @staticmethod
    def _key(ty):
        return None if ty is None else (None if ty[0] is None else tuple(ty[0]), ty[1])
