"""`ms-tuning-log`: how far MetaSchedule's tuning got, as MetaSchedule prints it.

The task scheduler's summary table, logged after every measured batch and at the end of
every tune (src/s_tir/meta_schedule/task_scheduler/task_scheduler.cc, PrintTuningStatistics):

     ID |     Name |    FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) | Trials | Done
    ------------------------------------------------------------------------------------------------------------
      0 | fused_.. | 4194304 |      1 |       996.4733 |       4.2091 |                4.2091 |     64 |    Y
    ------------------------------------------------------------------------------------------------------------
    Total trials: 64
    Total latency (us): 4.20915

TVM before October 2022 headed the last column `Terminated` (in a notebook `GFLOPS` and
`Wtd. Latency`, with a `Progress:` / `Total Trials: n / max` footer). A task with no valid
trial prints `N/A`. Rows are read by the header's cells (split on `|`), so a table indented
in a docstring, stripped of trailing blanks or drawn with `|`/`+---+` borders reads the same.
A log holds one table per update: each task's state is the last row that names it, and a
later `Task #<id> has finished` line (TVM 0.9 printed no table after it) marks it done.

MetaSchedule's per-task logs (`logs/tvm.s_tir.meta_schedule.logging.task_<i>_<name>.log`)
give the trials themselves: `[Task #0: <name>] Trial #3: GFLOPs: 12.3456. Time: 123.4567 us.
Best GFLOPs: 23.4567` (until October 2022 `[<name>] Trial #3: ... Time: 0.1235 ms. ...`), or
`Trial #3: Error in building:` / `Error in running:` followed by the error, the module and its
trace. Each trial is a tuning record (error_no 2 for a build error, 4 for a run error, as
AutoTVM numbers them); the view model_task_tuning counts them and takes their best (the
task's own columns hold what a table says: FLOP, weight, trials, best latency, done). Tasks
are named as MetaSchedule names them (the PrimFunc's name), so the view joins them to the
model's IR and task lists by name.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from hotdb.ingest.source import Source
from hotdb.ingest.text import line_ranges
from hotdb.rows import INT32_MAX, Parsed, TaskRow, TuningRecordRow

_HEADER = re.compile(r"^[\s|+]*ID\s*\|\s*Name\s*\|\s*FLOP\s*\|\s*Weight\s*\|", re.I)
_ROW = re.compile(r"^\s*\|?\s*\d+\s*\|")
_SEPARATOR = re.compile(r"^[\s|+:=-]*-{3}[\s|+:=-]*$")
_TOTAL_TRIALS = re.compile(r"^\s*Total trials:\s*(\d+)(?:\s*/\s*\d+)?\s*$", re.I)
_TOTAL_LATENCY = re.compile(r"^\s*Total latency \(us\):\s*(\S+)\s*$")
_PROGRESS = re.compile(r"^\s*Progress:\s*[\d.]+\s*%\s*$")
# `[Task #0: name] Trial #3: ...`, or before Oct 2022 `[name] Trial #3: ...`; the name's
# bracket is the one right before "Trial" (a log prefix may hold brackets of its own)
_TRIAL = re.compile(r"\[(?:Task #(?P<id>\d+): )?(?P<name>[^\[\]]+)\] Trial #(?P<trial>\d+):\s*(?P<rest>.*)$")
_MEASURED = re.compile(r"^GFLOPs: \S+\. Time: (?P<time>\S+) (?P<unit>us|ms)\. Best GFLOPs: \S+\s*$")
_FAILED = re.compile(r"^Error in (?P<stage>building|running)\b")
_INITIALIZING = re.compile(r"Initializing Task #(?P<id>\d+): (?P<name>\S.*?)\s*$")
_FINISHED = re.compile(r"\bTask #(?P<id>\d+) has finished\b")
# the scheduler's other messages: read, nothing to take from them
_CHATTER = re.compile(r"\[task_scheduler\.cc:\d+\]|\bScheduler picks Task #\d+|\[Updated\] Task #\d+|"
                      r"Sending \d+ (valid )?sample\(s\) to (builder|runner)|Build errors: \d+ sample|"
                      r"Total \d+ design space\(s\) generated|Design space #\d+:")
# a message that runs on over the following lines (the error, the module, its trace)
_BODY_START = re.compile(r"Design space #\d+:\s*$|Trial #\d+: Error in (building|running)")
_LOG_RECORD = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}")
_COLUMNS = {"id": "id", "name": "name", "flop": "flop", "weight": "weight", "speed (gflops)": "speed",
            "gflops": "speed", "latency (us)": "latency", "weighted latency (us)": "weighted",
            "wtd. latency": "weighted", "trials": "trials", "done": "done", "terminated": "done"}
_REQUIRED = ("id", "name", "flop", "weight", "latency", "trials")
ERROR_BUILD, ERROR_RUN = 2, 4  # AutoTVM's MeasureErrorNo: COMPILE_HOST, RUNTIME_DEVICE


@dataclass
class _State:
    first_line: int
    flop: int | None = None
    weight: int | None = None
    trials: int | None = None
    best_latency_us: float | None = None
    terminated: bool | None = None


class MsTuningLog:
    name = "ms-tuning-log"
    role = "tasks"
    reads = ("MetaSchedule's tuning state: the task scheduler's table (ID | Name | FLOP | Weight | ... | Trials | "
             "Done/Terminated) and per-task logs' '[Task #i: name] Trial #n: GFLOPs: ... Time: ...' lines")
    detects = "a header ' ID | Name | FLOP | Weight | ...', or lines '[Task #<i>: <name>] Trial #<n>: ...' / 'Initializing Task #<i>: <name>'"

    def sniff(self, source: Source) -> bool:
        return any(_HEADER.match(line) or _TRIAL.search(line) or _INITIALIZING.search(line)
                   for line in source.head.splitlines())

    def blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Tables (header to footer), and the scheduler's and the tasks' log lines with the
        messages that run on below them (errors, modules, traces)."""
        out: list[tuple[int, int]] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if _HEADER.match(line):
                end = _table_end(lines, i)
            elif _TRIAL.search(line) or _INITIALIZING.search(line) or _FINISHED.search(line) or _CHATTER.search(line):
                end = _body_end(lines, i) if _BODY_START.search(line) else i + 1
            else:
                i += 1
                continue
            if out and out[-1][1] == i:
                out[-1] = (out[-1][0], end)
            else:
                out.append((i, end))
            i = end
        return out

    def parse(self, source: Source) -> Parsed:
        reader = _Reader(source)
        reader.read()
        return reader.parsed()


class _Reader:
    """One pass over the lines, in order: a later table (or finished line) says the later state."""

    def __init__(self, source: Source):
        self.source, self.lines = source, source.lines
        self.states: dict[str, _State] = {}
        self.names_by_id: dict[int, str] = {}
        self.records: list[tuple[str, TuningRecordRow]] = []
        self.skipped: list[int] = []
        self.notes: list[str] = []
        self.tables = 0

    def read(self) -> None:
        i = 0
        while i < len(self.lines):
            line = self.lines[i]
            if _HEADER.match(line):
                i = self._table(i)
                continue
            if m := _TRIAL.search(line):
                self._trial(i + 1, line, m)
                i = _body_end(self.lines, i) if _BODY_START.search(line) else i + 1
                continue
            if m := _INITIALIZING.search(line):
                name = _unquote(m["name"])
                self.names_by_id[int(m["id"])] = name
                self.states.setdefault(name, _State(i + 1))
            elif m := _FINISHED.search(line):
                name = self.names_by_id.get(int(m["id"]))
                if name is not None:
                    self.states[name].terminated = True
            elif _CHATTER.search(line):
                if _BODY_START.search(line):
                    i = _body_end(self.lines, i)
                    continue
            elif line.strip():
                self.skipped.append(i + 1)
            i += 1

    def _table(self, at: int) -> int:
        """Reads the table whose header is line `at` (0-based); returns the index after it."""
        source, header = self.source, self.lines[at]
        bordered = header.rstrip().endswith("|")
        labels = _cells(header, bordered)
        columns = {_COLUMNS.get(re.sub(r"\s+", " ", label.lower())): k for k, label in enumerate(labels)}
        missing = [c for c in _REQUIRED if c not in columns]
        if missing:
            raise source.error(at + 1, "expected the columns ID | Name | FLOP | Weight | Speed (GFLOPS) | Latency (us) | "
                                       f"Weighted Latency (us) | Trials | Done; missing {', '.join(missing)}")
        rows: list[tuple[int, dict]] = []
        totals: dict[str, tuple[int, str]] = {}
        j = at + 1
        while j < len(self.lines):
            line = self.lines[j]
            if _SEPARATOR.match(line) or _PROGRESS.match(line):
                pass
            elif _ROW.match(line):
                rows.append((j + 1, self._row(j + 1, line, bordered, labels, columns)))
            elif m := _TOTAL_TRIALS.match(line):
                totals["trials"] = (j + 1, m.group(1))
            elif m := _TOTAL_LATENCY.match(line):
                totals["latency"] = (j + 1, m.group(1))
            else:
                break
            j += 1
        if not rows:
            raise source.error(at + 1, "the table has a header but no rows ('  0 | <name> | <FLOP> | ...')")
        self.tables += 1
        self.names_by_id = {}
        for line_no, row in rows:
            state = self.states.setdefault(row["name"], _State(line_no))
            state.flop, state.weight, state.trials = row["flop"], row["weight"], row["trials"]
            state.best_latency_us, state.terminated = row["latency"], row["done"]
            self.names_by_id[row["id"]] = row["name"]
        self._check_totals(rows, totals)
        return j

    def _row(self, line_no: int, line: str, bordered: bool, labels: list[str], columns: dict) -> dict:
        source = self.source
        cells = _cells(line, bordered)
        if len(cells) != len(labels):
            raise source.error(line_no, f"expected {len(labels)} cells ({' | '.join(labels)}), found {len(cells)}")

        def cell(column: str) -> str:
            return cells[columns[column]] if column in columns else ""

        def count(column: str, most: int) -> int:
            text = cell(column)
            if not re.fullmatch(r"\d+", text) or int(text) > most:
                raise source.error(line_no, f"expected a whole number of at most {most:,}, found {text!r}",
                                   field=labels[columns[column]])
            return int(text)

        name = cell("name")
        if not name:
            raise source.error(line_no, "expected a task name in the Name column", field="Name")
        latency = None
        if cell("latency").upper() != "N/A":
            try:
                latency = float(cell("latency"))
            except ValueError:
                latency = -1.0
            if not (latency >= 0 and math.isfinite(latency)):
                raise source.error(line_no, f"expected a latency in microseconds or N/A, found {cell('latency')!r}",
                                   field=labels[columns["latency"]])
        done = cell("done")
        if done.upper() not in ("", "Y"):
            raise source.error(line_no, f"expected Y or nothing in the last column, found {done!r}",
                               field=labels[columns["done"]])
        return {"id": count("id", INT32_MAX), "name": name, "flop": count("flop", 2**63 - 1),
                "weight": count("weight", INT32_MAX), "trials": count("trials", INT32_MAX), "latency": latency,
                "done": done.upper() == "Y" if "done" in columns else None}

    def _check_totals(self, rows: list[tuple[int, dict]], totals: dict) -> None:
        """MetaSchedule sums trials and weighted latency over the tasks with a latency: a
        footer that disagrees with the rows says a row is missing or misread."""
        timed = [row for _, row in rows if row["latency"] is not None]
        if "trials" in totals:
            line_no, text = totals["trials"]
            if int(text) != sum(row["trials"] for row in timed):
                self.notes.append(f"{self.source.name}:{line_no}: Total trials {text} is not the sum of the rows' "
                                  f"trials ({sum(row['trials'] for row in timed)}); rows may be missing")
        if "latency" in totals:
            line_no, text = totals["latency"]
            weighted = sum(row["latency"] * row["weight"] for row in timed)
            try:
                agrees = math.isclose(float(text), weighted, rel_tol=1e-3, abs_tol=1e-3)
            except ValueError:
                raise self.source.error(line_no, f"expected a number after 'Total latency (us):', found {text!r}") from None
            if not agrees:
                self.notes.append(f"{self.source.name}:{line_no}: Total latency (us) {text} is not the rows' weighted "
                                  f"latency ({weighted:.6g}); rows may be missing")

    def _trial(self, line_no: int, line: str, m: re.Match) -> None:
        name, trial, rest = m["name"].strip(), int(m["trial"]), m["rest"]
        if m["id"] is not None:
            self.names_by_id[int(m["id"])] = name
        self.states.setdefault(name, _State(line_no))
        if measured := _MEASURED.match(rest):
            try:
                seconds = float(measured["time"]) * (1e-6 if measured["unit"] == "us" else 1e-3)
            except ValueError:
                seconds = -1.0
            if not (seconds >= 0 and math.isfinite(seconds)):
                raise self.source.error(line_no, f"expected a time after 'Time:', found {measured['time']!r}")
            record = TuningRecordRow(line_no=line_no, task_index=-1, config_index=trial, costs_s=[seconds], error_no=0,
                                     all_cost_s=None, timestamp=None, target=None, tvm_version=None, raw_line=line)
        elif failed := _FAILED.match(rest):
            record = TuningRecordRow(line_no=line_no, task_index=-1, config_index=trial, costs_s=None,
                                     error_no=ERROR_BUILD if failed["stage"] == "building" else ERROR_RUN,
                                     all_cost_s=None, timestamp=None, target=None, tvm_version=None, raw_line=line)
        else:
            raise self.source.error(line_no, "expected 'GFLOPs: <x>. Time: <t> us. Best GFLOPs: <y>' or 'Error in "
                                             f"building:' / 'Error in running:' after 'Trial #{trial}:', found {rest[:60]!r}")
        self.records.append((name, record))

    def parsed(self) -> Parsed:
        source = self.source
        if not self.states:
            raise source.error(None, "no MetaSchedule task table or trial lines: expected a header ' ID | Name | FLOP | "
                                     "Weight | ...' or lines '[Task #0: <name>] Trial #1: GFLOPs: ...'")
        parsed = Parsed(role="tasks")
        index: dict[str, int] = {}
        for name, state in self.states.items():
            index[name] = len(parsed.tasks)
            parsed.tasks.append(TaskRow(task_index=len(parsed.tasks), tuner="meta_schedule", task_name=name,
                                        task_args="[]", task_kwargs=None, target=None, line_no=state.first_line,
                                        weight=state.weight, flop=state.flop, trials=state.trials,
                                        best_latency_us=state.best_latency_us, terminated=state.terminated))
        for name, record in self.records:
            record.task_index = index[name]
            parsed.records.append(record)
        if self.tables > 1:
            parsed.warnings.append(f"{source.name}: {self.tables} task tables; each task's state is the last row "
                                   "naming it")
        parsed.warnings.extend(self.notes)
        if self.skipped:
            parsed.warnings.append(f"{source.name}: {len(self.skipped)} lines are not MetaSchedule's tables or log "
                                   f"lines and were skipped (lines {line_ranges(self.skipped)})")
        return parsed


def _cells(line: str, bordered: bool) -> list[str]:
    """A table line's cells. A bordered table (`| ID | ... |`) has an empty cell outside
    each border; an unbordered row stripped of trailing blanks still ends in `|` before
    its empty last cell, so only a bordered table drops the last cell."""
    text = line.strip()
    cells = text.split("|")
    if text.startswith(("|", "+")):
        cells = cells[1:]
    if bordered and text.endswith("|"):
        cells = cells[:-1]
    return [c.strip() for c in cells]


def _unquote(name: str) -> str:
    return name[1:-1] if len(name) >= 2 and name[0] == name[-1] == '"' else name


def _table_end(lines: list[str], at: int) -> int:
    j = at + 1
    while j < len(lines) and (_SEPARATOR.match(lines[j]) or _ROW.match(lines[j]) or _TOTAL_TRIALS.match(lines[j])
                              or _TOTAL_LATENCY.match(lines[j]) or _PROGRESS.match(lines[j])):
        j += 1
    return j


def _body_end(lines: list[str], at: int) -> int:
    """One past the last line of a message that began on line `at` and runs on below it:
    up to the next log record (a timestamped line) or the next line MetaSchedule's
    own patterns know."""
    j = at + 1
    while j < len(lines):
        line = lines[j]
        if _LOG_RECORD.match(line) or _HEADER.match(line) or _TRIAL.search(line) or _CHATTER.search(line):
            break
        j += 1
    while j > at + 1 and not lines[j - 1].strip():
        j -= 1
    return j
