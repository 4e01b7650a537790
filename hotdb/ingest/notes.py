"""Warnings of one file, summarised by kind: a pasted log can hold hundreds of lines of
one sort, and a user needs the first few and a count, not a screenful."""

from __future__ import annotations

import re

from hotdb.ingest.text import LineRuns, line_ranges

SHOWN_PER_KIND = 3


class Warnings:
    """A file's warnings by kind: the first few of each kept whole, the rest as a count
    and their lines' runs (a streamed file may warn on millions of lines)."""

    def __init__(self, name: str, shown: int = SHOWN_PER_KIND):
        self.name = name
        self.shown = shown
        self._kinds: dict[str, list[tuple[int | None, str]]] = {}
        self._rest: dict[str, tuple[list[int], LineRuns]] = {}  # kind: [count], lines

    def add(self, kind: str, line: int | None, message: str) -> None:
        entries = self._kinds.setdefault(kind, [])
        if len(entries) < self.shown:
            entries.append((line, message))
            return
        count, lines = self._rest.setdefault(kind, ([0], LineRuns()))
        count[0] += 1
        if line is not None:
            lines.add(line)

    def __len__(self) -> int:
        return sum(len(v) for v in self._kinds.values()) + sum(count[0] for count, _ in self._rest.values())

    def lines(self) -> list[str]:
        """The first few warnings of each kind, then one line saying how many more."""
        out = []
        for kind, entries in self._kinds.items():
            for line, message in entries:
                out.append(f"{self.name}:{line}: {message}" if line is not None else f"{self.name}: {message}")
            if kind in self._rest:
                count, where = self._rest[kind]
                out.append(f"{self.name}: {count[0]} more like this" + (f" (lines {where})" if len(where) else ""))
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
