"""Helpers for text that people paste: runs of lines, line ranges, bracket depth."""

from __future__ import annotations

import re
from collections.abc import Callable


def line_runs(lines: list[str], belongs: Callable[[str], bool]) -> list[tuple[int, int]]:
    """(first, one past last) 0-based indexes of runs of lines that `belongs` accepts;
    blank lines inside a run stay in it, blank lines around it do not."""
    blocks, start, last = [], None, None
    for i, line in enumerate(lines):
        if belongs(line):
            if start is None:
                start = i
            last = i
        elif line.strip() and start is not None:
            blocks.append((start, last + 1))
            start = None
    if start is not None:
        blocks.append((start, last + 1))
    return blocks


def line_ranges(numbers: list[int], most: int = 12) -> str:
    """`1-3, 7, 10-12`: runs of consecutive line numbers (the first `most` runs)."""
    runs = LineRuns(most)
    for n in sorted(set(numbers)):
        runs.add(n)
    return str(runs)


class LineRuns:
    """Line numbers met in order, kept as `line_ranges` says them: the first `most` runs
    and a count of the others, so that a streamed file of millions of skipped lines costs
    a few numbers, not a list of them."""

    def __init__(self, most: int = 12) -> None:
        self.most = most
        self.count = 0  # distinct numbers added
        self._runs: list[tuple[int, int]] = []
        self._more = 0  # runs beyond the first `most`
        self._last: int | None = None

    def add(self, n: int) -> None:
        if self._last is not None and n <= self._last:
            return  # met already (numbers come in order)
        self.count += 1
        if self._last is not None and n == self._last + 1:
            if not self._more:
                self._runs[-1] = (self._runs[-1][0], n)
        elif len(self._runs) < self.most:
            self._runs.append((n, n))
        else:
            self._more += 1
        self._last = n

    def __len__(self) -> int:
        return self.count

    def __str__(self) -> str:
        text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in self._runs)
        return text + (f", ... ({self._more} more runs)" if self._more else "")


_COMMENTS = re.compile(r"/\*.*?(?:\*/|\Z)", re.S)  # one left open runs to the end


def bracket_depth(text: str, opening: str = "([", closing: str = ")]") -> int:
    """Opened minus closed brackets outside "strings" and /* comments */."""
    if '"' not in text:  # counted by str methods: a char-by-char walk is most of a Relay line's reading
        if "/*" in text:
            text = _COMMENTS.sub("", text)
        return sum(text.count(ch) for ch in opening) - sum(text.count(ch) for ch in closing)
    if "\\" not in text and "/*" not in text:  # no escaped quote, no comment: strings are every other part
        outside = text.split('"')[::2]
        return sum(part.count(ch) for part in outside for ch in opening) - sum(
            part.count(ch) for part in outside for ch in closing)
    depth, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = text.find('"', i + 1)
            while end > 0 and text[end - 1] == "\\":
                end = text.find('"', end + 1)
            i = n if end < 0 else end + 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        i += 1
    return depth
