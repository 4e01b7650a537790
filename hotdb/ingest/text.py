"""Helpers for text that people paste: runs of lines, line ranges, bracket depth."""

from __future__ import annotations

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
    if not numbers:
        return ""
    numbers = sorted(set(numbers))
    runs, start, prev = [], numbers[0], numbers[0]
    for n in numbers[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(runs[:most]) + (f", ... ({len(runs) - most} more runs)" if len(runs) > most else "")


def bracket_depth(text: str, opening: str = "([", closing: str = ")]") -> int:
    """Opened minus closed brackets outside "strings" and /* comments */."""
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
