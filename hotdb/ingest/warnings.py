"""Warnings of one file, summarised by kind: a pasted log can hold hundreds of lines of
one sort, and a user needs the first few and a count, not a screenful."""

from __future__ import annotations

import re

from hotdb.ingest.text import line_ranges

SHOWN_PER_KIND = 3


class Warnings:
    def __init__(self, name: str, shown: int = SHOWN_PER_KIND):
        self.name = name
        self.shown = shown
        self._kinds: dict[str, list[tuple[int | None, str]]] = {}

    def add(self, kind: str, line: int | None, message: str) -> None:
        self._kinds.setdefault(kind, []).append((line, message))

    def __len__(self) -> int:
        return sum(len(v) for v in self._kinds.values())

    def lines(self) -> list[str]:
        """The first few warnings of each kind, then one line saying how many more."""
        out = []
        for entries in self._kinds.values():
            for line, message in entries[: self.shown]:
                out.append(f"{self.name}:{line}: {message}" if line is not None else f"{self.name}: {message}")
            rest = entries[self.shown:]
            if rest:
                where = [line for line, _ in rest if line is not None]
                out.append(f"{self.name}: {len(rest)} more like this" + (f" (lines {line_ranges(where)})" if where else ""))
        return out


def summarise(warnings: list[str], shown: int = SHOWN_PER_KIND) -> list[str]:
    """Warnings of one file with those that say the same thing of other lines or values
    folded: the first few, then "N more like this" with their lines."""
    groups: dict[str, list[str]] = {}
    for warning in warnings:
        groups.setdefault(_shape(warning), []).append(warning)
    out = []
    for group in groups.values():
        out.extend(group[:shown])
        rest = group[shown:]
        if rest:
            lines = [int(m.group(1)) for w in rest if (m := _LOCATION.match(w))]
            prefix = _LOCATION.match(rest[0])
            where = rest[0][: prefix.start(1) - 1] if prefix else rest[0].split(": ", 1)[0]
            out.append(f"{where}: {len(rest)} more like this" + (f" (lines {line_ranges(lines)})" if lines else ""))
    return out


_LOCATION = re.compile(r"^.*?:(\d+): ")


def _shape(warning: str) -> str:
    """A warning without its line and the values it quotes: what kind of thing it says."""
    text = _LOCATION.sub("", warning, count=1)
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "#", text)
