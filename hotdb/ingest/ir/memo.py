"""Results of a pure function kept by a key made from its arguments' text, for readers
that meet the same few hundred arguments over millions of lines (a Relay text's calls
repeat their ops, attributes and types)."""

from __future__ import annotations

from typing import Callable


class Memo:
    """`fn`'s result (or the message of the `error` it raised, raised again as a new one:
    a kept exception would grow its traceback every time) per key, the `kept` most recent
    keys only (a text of ever new arguments stays bounded)."""

    def __init__(self, fn: Callable, error: type[Exception] | tuple = (), kept: int = 4096) -> None:
        self.fn, self.error, self.kept = fn, error, kept
        self.results: dict = {}

    def __call__(self, key, *args):
        hit = self.results.get(key)
        if hit is None:
            try:
                hit = (self.fn(*args), None)
            except self.error as exc:
                hit = (None, (type(exc), str(exc)))
            self.results[key] = hit
            if len(self.results) > self.kept:
                del self.results[next(iter(self.results))]
        if hit[1] is not None:
            raise hit[1][0](hit[1][1])
        return hit[0]
