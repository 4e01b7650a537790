"""The options commands share, and what an option's value may be, checked as typer parses
it (exit 2, naming the option): choices, numbers in range, memory sizes, durations."""

from __future__ import annotations

import math
import re
from enum import Enum
from typing import Annotated, Optional

import typer

from hotdb import choices, limits


def checked(low: float, high: float = math.inf, *, low_open: bool = False, what: str = "a number"):
    """A typer callback refusing (exit 2) what a number option cannot mean: nan, inf,
    values out of range; None (an option not given) passes."""
    def check(value):
        if value is None:
            return value
        below = value <= low if low_open else value < low
        if not math.isfinite(value) or below or value > high:
            bound = f"{'above' if low_open else 'at least'} {low:g}" + (f" and at most {high:g}" if high < math.inf else "")
            raise typer.BadParameter(f"expected {what} {bound}, got {value!r}")
        return value
    return check


PERCENT = checked(0, 100, low_open=True, what="a percentage")
NON_NEGATIVE = checked(0, what="a number")
POSITIVE = checked(0, low_open=True, what="a number")
COUNT = checked(1, what="a whole number")
ZERO_OR_MORE = checked(0, what="a whole number")
SQL_SECONDS = checked(limits.SQL_TIMEOUT_MINIMUM, limits.SQL_TIMEOUT_MAXIMUM, what="a number of seconds")


def memory_size(text: str | None) -> int | None:
    """Bytes of a memory limit written 512MB or 2GiB, by the rule HOTDB_MEMORY_LIMIT follows."""
    if text is None:
        return None
    try:
        return limits.size(text, limits.MEMORY_MINIMUM)
    except ValueError as exc:
        raise typer.BadParameter(f"{exc}, got {text!r}") from None


_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")


def duration(text: str | None) -> float | None:
    """Seconds of a duration written 20m, 1h30m, 90s or 90."""
    if text is None:
        return None
    match = _DURATION.match(text.strip().lower())
    if not text.strip() or not match or not any(match.groups()):
        raise typer.BadParameter(f"expected a duration such as 20m, 1h30m or 90s, got {text!r}")
    hours, minutes, seconds = (float(g or 0) for g in match.groups())
    total = 3600 * hours + 60 * minutes + seconds
    if total <= 0:
        raise typer.BadParameter(f"expected a duration above 0, got {text!r}")
    return total


def _choices(name: str, values: tuple[str, ...]) -> type[Enum]:
    """An enum of an option's choices (hotdb/choices.py), for typer to offer and check;
    members named as the values are ("autotvm-log": autotvm_log)."""
    return Enum(name, [(value.replace("-", "_"), value) for value in values], type=str)


OutputFormat = _choices("OutputFormat", choices.OUTPUT_FORMATS)
ExportFormat = _choices("ExportFormat", choices.EXPORT_TO)
CompareBy = _choices("CompareBy", choices.COMPARE_BY)
TopBy = _choices("TopBy", choices.TOP_BY)
ShareOf = _choices("ShareOf", choices.SHARE_OF)


ShareOfOption = Annotated[ShareOf, typer.Option(
    "--share-of", help="Tasks' shares of the tunable kernels' time (what tasks can reach), or of the whole run's.")]


FormatOption = Annotated[OutputFormat, typer.Option(
    "--format", "-f", help="table for people; json, jsonl (one object a line) or csv: standard output holds only the data.")]
RunOption = Annotated[Optional[str], typer.Option("--run", help="Run label (default: the latest run).")]
DeviceOption = Annotated[Optional[str], typer.Option(
    "--device", metavar="KEY", help="Only runs measured on devices of this RPC tracker key (local: not through a tracker).")]
RpcOption = Annotated[Optional[str], typer.Option(
    "--rpc", envvar="HOTDB_RPC", metavar="HOST:PORT", help="Measure on a device of TVM's RPC tracker at HOST:PORT (with --key).")]
KeyOption = Annotated[Optional[str], typer.Option(
    "--key", envvar="HOTDB_RPC_KEY", help="The tracker key of the device kind to measure on (see `hotdb devices`).")]
RpcTimeoutOption = Annotated[Optional[float], typer.Option(
    "--rpc-timeout", metavar="SECONDS", callback=POSITIVE,
    help="How long to wait for a free device of the key (default 60).")]
CcOption = Annotated[Optional[str], typer.Option(
    "--cc", envvar="HOTDB_CC", metavar="COMPILER",
    help="Cross compiler for a target that is not this machine's (default: <triple>-gcc where on the PATH).")]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace an existing file hotdb did not write (never the "
                                                      "database or a lake).")]
ModelOption = Annotated[Optional[str], typer.Option("--model", help="Model name (its latest run).")]
