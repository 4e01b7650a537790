"""Errors a user can act on. The CLI prints them without a traceback (unless --debug)."""

from __future__ import annotations

from pathlib import Path


class HotdbError(Exception):
    """Any error caused by input or usage rather than by a bug in hotdb."""


class ParseError(HotdbError):
    """A file that does not say what its format requires: where, and what was expected."""

    def __init__(self, path: str | Path, line: int | None, message: str, *, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        if field:
            where += f" [{field}]"
        super().__init__(f"{where}: {message}")


class UsageError(HotdbError):
    """A command that cannot be carried out as asked (unknown run, bad option value...)."""


class DatabaseError(HotdbError):
    """The database cannot be opened or written (locked, newer schema, ...)."""


class CaptureError(HotdbError):
    """TVM failed to import, compile or run a model during live capture."""


class TuneFailed(HotdbError):
    """A tune in which no trial measured a time. `limit` names the tune's setting that
    caused it, where one did ("build_timeout_s" or "run_timeout_s"), for the CLI to say
    which option raises it."""

    def __init__(self, message: str, *, trials: int, failures: dict[str, int], limit: str | None = None):
        super().__init__(message)
        self.trials, self.failures, self.limit = trials, failures, limit
