"""Rendering results for a terminal (Rich tables), JSON and CSV. The only module that imports Rich,
and only where it draws: JSON and CSV output never import it (~40 ms of a command's start,
bench/cli_start.py)."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import sys
from contextlib import contextmanager
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from hotdb.cli.words import View, figure, plain
from hotdb.result import Result

if TYPE_CHECKING:
    from rich.console import Console

    from hotdb.store.loader import LoadResult


def _plain_terminal() -> bool:
    """NO_COLOR (no-color.org) and TERM=dumb ask for text without any escape sequence:
    no colour, and no bold or dim either (Rich's no_color keeps those)."""
    return "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb"


def _columns() -> int | None:
    """COLUMNS when set, at least 20: Rich takes COLUMNS=0 as no room at all and prints
    nothing, errors included."""
    columns = os.environ.get("COLUMNS", "")
    return max(int(columns), 20) if columns.isdigit() else None


def _console(stderr: bool = False, **options) -> Console:
    from rich.console import Console

    if _columns() is not None:
        options.setdefault("width", _columns())
    return Console(stderr=stderr, color_system=None if _plain_terminal() else "auto", emoji=False, **options)


@cache
def _err() -> Console:
    """Standard output holds a command's result only (a table, or the data of -f json|jsonl|csv);
    every note, progress bar, warning and error goes to standard error."""
    return _console(stderr=True, soft_wrap=True)

# How many list items a cell (terminal table, report) shows before "(+N more)".
_LIST_ITEMS = 3

# Columns a narrow terminal loses, in this order (docs/design.md, "Output"): first the
# details, while the table is wider than the terminal; then, while it is wider even with its
# text wrapped, the rest of these, then the others from the right. A view's `keep` columns
# (View.keep: what the command answers) and a comparison's answer are never dropped: `top`
# loses how a match was found and how sure it is, then the time and calls, before what the
# task is and how much of the run it holds.
DROP_DETAILS = ("workload_tasks", "methods", "confidence", "task_args", "tags", "nodes", "models", "candidates",
                "profile_variant", "created_at")
DROP_THEN = ("target", "device", "kernel_family", "calls", "time_us", "workload")
_KEEP = ("verdict", "ratio", "ratio_low", "ratio_high", "speedup", "speedup_low", "speedup_high")
# The narrowest a column of text is wrapped to: its longest word up to this, so that a name
# or key is folded only where it is one long word
_WRAP_FLOOR = 24
_WRAP_MIN = 6


def _json_default(value):
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


# A terminal table of `hotdb sql` shows this many rows: one of millions is read by a program (-f csv|jsonl|json)
TABLE_ROWS = 1000


def render(result: Result, fmt: str = "table", view: View | None = None) -> None:
    if fmt == "table":
        _table(result, view or View(""))
    else:
        streamed(result.columns, [result.records()] if fmt != "csv" else [result.rows], fmt, decoded=True)


def streamed(columns: list[str], batches, fmt: str, view=None, decoded: bool = False) -> None:
    """Rows as they come, a batch at a time (`hotdb sql`): JSON, JSON lines and CSV hold
    no more than a batch; a table shows the first TABLE_ROWS and counts the rest."""
    if fmt == "table":
        rows, more = [], 0
        for batch in batches:
            taken = batch[: max(TABLE_ROWS - len(rows), 0)]
            rows += taken
            more += len(batch) - len(taken)
        result = Result(columns, rows, {"more_rows": more})
        _table(result, view(result) if view else View(""))
        return
    dropped = 0
    out = sys.stdout
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
    first = True
    for batch in batches:
        records = batch if decoded or fmt == "csv" else Result(columns, batch).records()
        for record in records:
            if fmt == "csv":
                writer.writerow([_csv_cell(v) for v in record])
                continue
            record, lost = _finite(record)
            dropped += lost
            if fmt == "jsonl":
                out.write(json.dumps(record, default=_json_default, allow_nan=False) + "\n")
            else:  # what json.dumps(records, indent=2) writes, a record at a time
                text = json.dumps(record, indent=2, default=_json_default, allow_nan=False)
                out.write(("[\n" if first else ",\n") + "\n".join("  " + line for line in text.split("\n")))
            first = False
    if fmt == "json":
        out.write("[]\n" if first else "\n]\n")
    if dropped:
        note(f"{dropped} values were not finite numbers (NaN or infinite): written as null")


def _finite(record: dict) -> tuple[dict, int]:
    """The record with NaN and infinite floats as None (JSON has no such numbers), and how many."""
    bad = [k for k, v in record.items() if isinstance(v, float) and not math.isfinite(v)]
    if not bad:
        return record, 0
    return {k: (None if k in bad else v) for k, v in record.items()}, len(bad)


def _csv_cell(value):
    if isinstance(value, (list, dict)):
        return json.dumps(value, default=_json_default)
    if value is None:
        return ""
    return value


def cell(column: str, value) -> str:
    """A value as one line of plain text, as every table shows it (the terminal's and the
    report's): each figure with its column's precision, the first few list items."""
    return plain(_text(column, value))


def _text(column: str, value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return figure(column, value)
    if isinstance(value, list):
        items = [str(v) for v in value]
        shown = ", ".join(items[:_LIST_ITEMS])
        return shown + (f" (+{len(items) - _LIST_ITEMS} more)" if len(items) > _LIST_ITEMS else "")
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _terminal_width() -> int | None:
    """The width a table must fit: the terminal's, or COLUMNS when set; None when the
    output is piped without COLUMNS (a table then takes the width it needs)."""
    if _columns() is not None:
        return _columns()
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _needed(columns: list[str], widths: dict[str, int]) -> int:
    return sum(widths[c] for c in columns) + 3 * len(columns) + 1  # cells, padding and borders


def _fit(shown: list[str], natural: dict[str, int], floors: dict[str, int], numeric: set[str], keep: list[str],
         width: int, hidden: list[str], cells: dict[str, list[str]]) -> dict[str, int]:
    """The width of each column shown, to fit `width`; `shown` loses columns in place. Numbers
    keep every digit. Text is wrapped onto more lines, never cut: a text column may narrow
    to its floor (its longest word, up to _WRAP_FLOOR). Dropped, never one of `keep`: the
    details (DROP_DETAILS) while the table is too wide, then, while it is too wide even
    wrapped, DROP_THEN's columns and the others from the right. Where the kept columns alone
    are too wide, their longest words are folded. The text columns then share the room
    (_shared_out)."""
    def least(columns) -> int:
        return _needed(columns, {c: natural[c] if c in numeric else floors[c] for c in columns})

    def drop(columns, too_wide) -> None:
        for column in columns:
            if column in shown and column not in keep and too_wide():
                shown.remove(column)
                hidden.append(column)

    drop(DROP_DETAILS, lambda: _needed(shown, natural) > width)
    drop(list(DROP_THEN) + [c for c in reversed(shown) if c not in DROP_THEN], lambda: least(shown) > width)
    texts = [c for c in shown if c not in numeric]
    for lowest in (lambda c: max(_WRAP_MIN, len(c)), lambda c: _WRAP_MIN):  # a header folds last
        while least(shown) > width and any(floors[c] > lowest(c) for c in texts):
            widest = max((c for c in texts if floors[c] > lowest(c)), key=lambda c: floors[c])
            floors[widest] -= 1
    return _shared_out(shown, natural, numeric, width, cells)


def _lines(words: list[int], width: int) -> int:
    """How many lines a cell of words (their lengths) takes wrapped at `width`: whole
    words to a line, a word longer than the line folded."""
    lines, used = 1, -1
    for length in words:
        if used >= 0 and used + 1 + length <= width:
            used += 1 + length
            continue
        if used >= 0:
            lines += 1
        lines += (length - 1) // width
        used = (length - 1) % width + 1
    return lines


def _shared_out(shown: list[str], natural: dict[str, int], numeric: set[str], width: int,
                cells: dict[str, list[str]]) -> dict[str, int]:
    """The text columns' widths: from the narrowest their header allows, the room given a
    character at a time to the column where it saves the most lines (rows that wrap
    least), up to each column's own width: a long name folds a little so that a long
    key beside it needs fewer lines."""
    widths = {c: natural[c] if c in numeric else min(natural[c], max(_WRAP_MIN, len(c))) for c in shown}
    texts = [c for c in shown if c not in numeric]
    sample = {c: [[len(word) for word in text.split()] or [0] for text in cells[c][:200]] for c in texts}

    def height(trial: dict[str, int]) -> int:
        rows = len(next(iter(sample.values()), []))
        return sum(max(_lines(sample[c][i], trial[c]) for c in texts) for i in range(rows))

    spare = width - _needed(shown, widths)
    while spare > 0:
        growing = [c for c in texts if widths[c] < natural[c]]
        if not growing:
            break
        best = min(growing, key=lambda c: (height({**widths, c: widths[c] + 1}), widths[c]))
        widths[best] += 1
        spare -= 1
    return widths


def _table(result: Result, view: View) -> None:
    """Every row whole, whatever the width: text too wide wraps onto more lines (a task
    name or workload key is copied whole), numbers are never cut, and the least useful
    columns are dropped first where wrapping alone cannot fit the width (_fit)."""
    shown = [c for c in (view.columns or result.columns) if c in result.columns]
    cells = {c: [cell(c, row[result.columns.index(c)]) for row in result.rows] for c in shown}
    numeric = {c for c in shown if any(isinstance(r[result.columns.index(c)], (int, float))
                                      and not isinstance(r[result.columns.index(c)], bool) for r in result.rows[:20])}
    natural = {c: max([len(c)] + [len(text) for text in cells[c]]) for c in shown}
    floors = {c: min(natural[c], max([_WRAP_MIN] + [min(len(word), _WRAP_FLOOR) for text in cells[c] for word in text.split()]))
              for c in shown}
    keep = list(view.keep) if view.keep else shown[:2]
    keep += [c for c in _KEEP if c in shown]
    width, hidden = _terminal_width(), []
    widths = _fit(shown, natural, floors, numeric, keep, width, hidden, cells) if width is not None else dict(natural)
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=_safe(view.title), title_justify="left", header_style="bold",
                  box=box.ASCII if os.environ.get("TERM") == "dumb" else box.HEAVY_HEAD)
    for column in shown:
        if column in numeric:
            table.add_column(_safe(column), justify="right", no_wrap=True, min_width=widths[column])
        else:
            table.add_column(_safe(column), overflow="fold", width=widths[column])
    for i in range(len(result.rows)):
        table.add_row(*(escape(cells[c][i]) for c in shown))
    notes = list(view.notes)
    if hidden:
        notes.append(f"hidden to fit {width} columns: {', '.join(hidden)} (-f json shows every column)")
    console = _console(file=sys.stdout, width=width or max(_needed(shown, widths), len(plain(view.title))))
    with console.capture() as captured:
        console.print(table, soft_wrap=False)
        for note_text in notes:  # wrapped at the terminal's width, as the table is; one line when piped
            console.print(f"[dim]{_safe(note_text)}[/dim]", soft_wrap=width is None, highlight=False)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def ingest_summary(result: LoadResult) -> None:
    """What an ingest stored, on standard error: a report of the work, not its data."""
    for f in result.files:
        if f.source_id is None:
            _err().print(f"[yellow]skipped[/yellow] {_safe(f.path)}: already ingested for model {_safe(result.model)} "
                       f"({_safe(f.duplicate_of)})")
        else:
            _err().print(f"[green]ingested[/green] {_safe(f.path)} as {_safe(f.format)} ({f.role}): {f.rows:,} rows")
        for warning in f.warnings:
            warn(warning)
    for note_text in result.notes:
        warn(note_text)
    if result.nothing_new:
        _err().print(f"nothing new: every file was already in the database for model {_safe(result.model)}")
    elif result.run_label:
        _err().print(f"model {_safe(result.model)}, run {_safe(result.run_label)}")
    else:
        _err().print(f"model {_safe(result.model)}")


@contextmanager
def progress():
    """A progress bar per capture stage; yields the callback the API calls."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bars: dict[str, int] = {}
    with Progress(TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=_err(), transient=False) as bar:
        def update(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = bar.add_task(stage, total=total)
            bar.update(bars[stage], completed=done, total=total)
        yield update


def _safe(text) -> str:
    """Any name or value as text in Rich's markup: no style (`[bold]`), no broken tag
    (`[/]`), no terminal escape sequence."""
    from rich.markup import escape

    return escape(plain(str(text)))


def warn(message: str) -> None:
    """A warning on standard error, as plain text: Rich would turn `file.txt:100:` into an
    emoji and wrap a long path; a warning is read, searched and copied as it is."""
    sys.stderr.write(f"warning: {plain(message)}\n")
    sys.stderr.flush()


def note(message: str) -> None:
    """A remark on standard error, so that standard output stays the exported data."""
    _err().print(f"[dim]{_safe(message)}[/dim]", highlight=False)


def error(message: str) -> None:
    _err().print(f"[bold red]error:[/bold red] {_safe(message)}", highlight=False, soft_wrap=True)


def info(message: str) -> None:
    """What a command did (wrote a file, imported a lake), on standard error."""
    _err().print(_safe(message), highlight=False)
