"""Rendering results for a terminal (Rich tables), JSON and CSV. The only module that imports Rich,
and only where it draws: JSON and CSV output never import it (~40 ms of a command's start,
bench/cli_start.py)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
from contextlib import contextmanager
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from hotdb.result import Result
from hotdb.words import View, figure, plain

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

# Columns a narrow terminal loses first, in this order (the table keeps one line per row).
# `top` loses how a match was found and how sure it is before what the task computes
_DROP_FIRST = ("workload_tasks", "methods", "confidence", "workload", "task_args", "tags", "nodes", "models", "candidates",
               "profile_variant", "created_at", "target", "device", "kernel_family", "reason")
# a comparison's answer: never dropped to fit a width (text beside it is shortened instead)
_KEEP = ("verdict", "ratio", "ratio_low", "ratio_high", "speedup", "speedup_low", "speedup_high")


def _json_default(value):
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def render(result: Result, fmt: str = "table", view: View | None = None) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(result.records(), indent=2, default=_json_default) + "\n")
    elif fmt == "jsonl":
        sys.stdout.write("".join(json.dumps(r, default=_json_default) + "\n" for r in result.records()))
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        for row in result.rows:
            writer.writerow([_csv_cell(v) for v in row])
        sys.stdout.write(buffer.getvalue())
    else:
        _table(result, view or View(""))


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


def _needed(columns: list[str], natural: dict[str, int]) -> int:
    return sum(natural[c] for c in columns) + 3 * len(columns) + 1  # cells, padding and borders


def _fit(shown: list[str], natural: dict[str, int], numeric: set[str], width: int, hidden: list[str]) -> None:
    """Make the table fit `width` in place: drop the least useful columns, shorten long
    text to 24 characters, drop more columns from the right, shorten text to 8. The
    first two columns name the row and stay; numbers keep every digit."""
    def shorten(floor: int) -> None:
        texts = [c for c in shown if c not in numeric]
        while _needed(shown, natural) > width:
            widest = max(texts, key=lambda c: natural[c], default=None)
            if widest is None or natural[widest] <= floor:
                return
            natural[widest] -= 1

    def drop(columns) -> None:
        for column in columns:
            if _needed(shown, natural) <= width:
                return
            shown.remove(column)
            hidden.append(column)

    drop([c for c in _DROP_FIRST if c in shown[2:] and c not in _KEEP])
    shorten(24)
    drop([c for c in reversed(shown[2:]) if c not in _KEEP])
    shorten(8)


def _table(result: Result, view: View) -> None:
    """One line per row, whatever the width: the least useful columns are dropped first
    (_DROP_FIRST), then text is shortened with an ellipsis; numbers are never cut."""
    shown = [c for c in (view.columns or result.columns) if c in result.columns]
    cells = {c: [cell(c, row[result.columns.index(c)]) for row in result.rows] for c in shown}
    numeric = {c for c in shown if any(isinstance(r[result.columns.index(c)], (int, float))
                                      and not isinstance(r[result.columns.index(c)], bool) for r in result.rows[:20])}
    natural = {c: max([len(c)] + [len(text) for text in cells[c]]) for c in shown}
    width, hidden = _terminal_width(), []
    if width is not None:
        _fit(shown, natural, numeric, width, hidden)
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=_safe(view.title), title_justify="left", header_style="bold",
                  box=box.ASCII if os.environ.get("TERM") == "dumb" else box.HEAVY_HEAD)
    for column in shown:
        if column in numeric:
            table.add_column(_safe(column), justify="right", no_wrap=True, min_width=natural[column])
        else:
            table.add_column(_safe(column), no_wrap=True, overflow="ellipsis", max_width=natural[column])
    for i in range(len(result.rows)):
        table.add_row(*(escape(cells[c][i]) for c in shown))
    notes = list(view.notes)
    if hidden:
        notes.append(f"hidden to fit {width} columns: {', '.join(hidden)} (-f json shows every column)")
    console = _console(file=sys.stdout, width=width or max(_needed(shown, natural), len(plain(view.title))))
    with console.capture() as captured:
        console.print(table, soft_wrap=False)
        for note_text in notes:
            console.print(f"[dim]{_safe(note_text)}[/dim]", soft_wrap=True, highlight=False)
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
