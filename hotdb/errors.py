"""Errors a user can act on. The CLI prints them without a traceback (unless --debug) and
exits with their `exit_code`: the one map from errors to exit codes."""

from __future__ import annotations

from pathlib import Path


class HotdbError(Exception):
    """Any error caused by input or usage rather than by a bug in hotdb."""

    exit_code = 1


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


class BadArgument(UsageError):
    """A value that cannot mean anything, whatever the database holds (an empty query, a
    weight not above 0, a choice not offered): refused before the database is opened, with
    the exit code of the command line's own usage errors."""

    exit_code = 2


class QueryLimit(UsageError):
    """A `hotdb sql` query stopped at one of its limits: `limit` names which ("timeout_s"
    or "memory_limit"), for the CLI's words (hotdb/cli/words.py: error) to say which option
    raises it for one query."""

    def __init__(self, message: str, *, limit: str):
        super().__init__(message)
        self.limit = limit


class DatabaseError(HotdbError):
    """The database cannot be opened or written (locked, newer schema, ...)."""


class CaptureError(HotdbError):
    """TVM failed to import, compile or run a model during live capture."""


class DeviceError(HotdbError):
    """A remote device, or the RPC tracker that lends it, could not be reached, had no
    device free in time, or was lost mid-capture: which one, and where."""


class TuneFailed(HotdbError):
    """A tune in which no trial measured a time. `limit` names the tune's setting that
    caused it, where one did ("build_timeout_s" or "run_timeout_s"), for the CLI's words
    (hotdb/cli/words.py: error) to say which option raises it."""

    def __init__(self, message: str, *, trials: int, failures: dict[str, int], limit: str | None = None):
        super().__init__(message)
        self.trials, self.failures, self.limit = trials, failures, limit


class GateFailed(HotdbError):
    """A comparison that a regression gate refused. `result` is the comparison, for the
    caller to show: the gate decides, the caller only reports."""

    def __init__(self, message: str, *, result):
        super().__init__(message)
        self.result = result


class DifferentBuilds(GateFailed):
    """The gate judges runs of one IR and target, and these two are not (unless it is
    allowed to judge different builds)."""


class NothingTested(GateFailed):
    """A gate that could test no item: it never passes on nothing."""


class Regressions(GateFailed):
    """Significant regressions above the gate's percentage: `regressions`, their rows."""

    def __init__(self, message: str, *, result, regressions: list[dict]):
        super().__init__(message, result=result)
        self.regressions = regressions


def ctrl_c(exc: BaseException) -> BaseException:
    """Ctrl-C as DuckDB reports it (a SIGINT during a query ends it with "Query interrupted")
    as the KeyboardInterrupt it is; any other error as it is."""
    if type(exc).__name__ in ("InterruptException", "RuntimeError") and "interrupted" in str(exc).lower():
        return KeyboardInterrupt()
    return exc
