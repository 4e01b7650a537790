"""A profiler Report call's values, checked: what the Report reader read whole
(profile_report.py) and the one that decodes a large JSON call by call (report/streamed_json.py)
both take, so that both say the same of a bad value."""

from __future__ import annotations

import json

from hotdb.ingest.source import Source
from hotdb.rows import INT32_MAX

# the one-key objects Report.json() wraps each value in
METRIC_KEYS = ("string", "count", "microseconds", "percent", "ratio")


def metric_text(value) -> str | None:
    """A string metric; anything else (a damaged file's nested object) becomes its JSON text."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value)


def time_of(source: Source, line_no: int | None, duration, field: str = "Duration (us)") -> float:
    """A call's duration, checked (the streamed JSON reader names the call as `field`)."""
    try:
        time_us = float(str(duration).replace(",", ""))
    except (TypeError, ValueError):
        raise source.error(line_no, f"expected a number, found {duration!r}", field=field) from None
    if not time_us >= 0 or time_us == float("inf"):
        raise source.error(line_no, f"expected a finite duration >= 0, found {duration!r}", field=field)
    return time_us


def count_of(source: Source, line_no: int | None, count, field: str = "Count") -> int:
    """A call's count as written (1 when empty), checked."""
    try:
        number = int(float(str(count).replace(",", ""))) if count not in (None, "") else 1
    except (ValueError, OverflowError):
        raise source.error(line_no, f"expected an integer, found {count!r}", field=field) from None
    if number > INT32_MAX:
        raise source.error(line_no, f"expected a count below 2^31, found {count!r}", field=field)
    return number
