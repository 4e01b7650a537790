"""Export the tasks a coverage cut selects, in each tuner's own format.

The selection is SQL (queries/reports/export_selection.sql); this module only writes
it out. Tuning-log exports copy the selected tasks' record lines unchanged, so that
`autotvm.apply_history_best` and `auto_scheduler.ApplyHistoryBest` read them as logs.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from hotdb.errors import UsageError

FORMATS = ("autotvm-log", "autotvm-tasks", "ansor-log", "tvmc-tasks", "metaschedule", "json", "csv")
_TUNER = {"autotvm-log": "autotvm", "autotvm-tasks": "autotvm", "ansor-log": "auto_scheduler",
          "tvmc-tasks": None, "metaschedule": "meta_schedule"}


@dataclass
class Export:
    text: str
    selected: list[dict]  #: rows of the selection (one per task, or per task-less workload)
    covered_pct: float
    notes: list[str] = field(default_factory=list)


def render(fmt: str, selection: list[dict], record_lines: list[str] | None, listing_order: list[int] | None) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"--to must be one of {', '.join(FORMATS)}, not {fmt!r}")
    tuner = _TUNER.get(fmt)
    rows = [r for r in selection if r["task_name"] is not None and (tuner is None or r["tuner"] == tuner)]
    if fmt in ("autotvm-log", "ansor-log"):
        return "".join(line + "\n" for line in record_lines or [])
    if fmt == "autotvm-tasks":
        return json.dumps([[r["task_name"], json.loads(r["task_args"])] for r in rows], indent=1) + "\n"
    if fmt == "tvmc-tasks":
        return ",".join(str(i) for i in listing_order) + "\n"
    if fmt == "metaschedule":
        return json.dumps([{"task_name": r["task_name"], "structural_hash": r["structural_hash"],
                            "workload": r["workload"], "weight": r["weight"], "calls": r["calls"],
                            "share_pct": r["share_pct"], "time_us": r["time_us"]} for r in rows], indent=1) + "\n"
    if fmt == "json":
        return json.dumps([{**r, "task_args": json.loads(r["task_args"]) if r["task_args"] else None}
                           for r in selection], indent=1, default=str) + "\n"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(selection[0]) if selection else ["task_name"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(selection)
    return buffer.getvalue()


def filter_log(path: Path, selection: list[dict], tuner: str) -> list[str]:
    """Lines of a tuning log (not ingested) that belong to the selected tasks, unchanged."""
    from hotdb.ingest import get
    from hotdb.ingest.base import Source

    source = Source.read(path)
    parsed = get("ansor-log" if tuner == "auto_scheduler" else "autotvm-tasks").parse(source)
    wanted = {(r["task_name"], r["task_args"]) for r in selection if r["tuner"] == tuner}
    return [rec.raw_line for rec in parsed.records
            if (parsed.tasks[rec.task_index].task_name, parsed.tasks[rec.task_index].task_args) in wanted]
