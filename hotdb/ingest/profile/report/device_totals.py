"""Report.json()'s per-device totals, and the time they hold beyond the calls listed.

TVM's `Percent` is relative to each device's total (the `Total` frame). A report of
selected calls, or a run with gaps between calls, lists less than the total: that time
becomes one node per device, `(rest of <device> total)`, so that shares in hotdb are the
shares TVM printed. Both report readers (row by row and large-file) use this.
"""

from __future__ import annotations

from hotdb.rows import NodeRow

REST_PREFIX = "(rest of "


def rest_nodes(totals: dict[str, float], listed: dict[str | None, float], rows: int, first_index: int) -> list[NodeRow]:
    """The `(rest of <device> total)` nodes: what each device's total holds beyond the time
    of its listed calls (`listed`: time per device; calls without a Device count for the one
    device when there is one), when more than the report's rounding of `rows` cells."""
    out = []
    for device, total in sorted(totals.items()):
        time_listed = listed.get(device, 0.0) if device in listed else (listed.get(None, 0.0) if len(totals) == 1 else 0.0)
        rest = total - time_listed
        if rest > 0.01 * rows + 0.005:  # cells are printed with two decimals
            name = f"{REST_PREFIX}{device} total)"
            out.append(NodeRow(node_index=first_index + len(out), node_name=name, func_name=name, time_us=rest,
                               device=device, is_kernel=False, kernel_family="unlisted"))
    return out


def device_totals(metrics) -> dict[str, float]:
    """Each device's total time from a Report.json() `device_metrics` object."""
    totals = {}
    for device, frame in (metrics.items() if isinstance(metrics, dict) else ()):
        duration = frame.get("Duration (us)") if isinstance(frame, dict) else None
        if isinstance(duration, dict) and len(duration) == 1:
            duration = next(iter(duration.values()))
        if isinstance(duration, (int, float)) and duration >= 0 and duration != float("inf"):
            totals[str(device)] = float(duration)
    return totals
