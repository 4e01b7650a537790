"""Rendering results for a terminal (Rich tables), JSON and CSV. The only module that imports Rich."""

from __future__ import annotations

import csv
import io
import json
import sys
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hotdb.result import Result
from hotdb.words import View, figure, plain

if TYPE_CHECKING:
    from hotdb.store.loader import LoadResult

FORMATS = ("table", "json", "csv")

# Piped output has no terminal width; a wide table then stays one row per line.
_out = Console(soft_wrap=False, width=None if sys.stdout.isatty() else 220)
_err = Console(stderr=True)

# How many list items a table cell shows before "(+N more)".
_LIST_ITEMS = 3


def _json_default(value):
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def render(result: Result, fmt: str = "table", view: View | None = None) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(result.records(), indent=2, default=_json_default) + "\n")
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


def _cell(column: str, value) -> str:
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


def _table(result: Result, view: View) -> None:
    table = Table(title=_safe(view.title), title_justify="left", header_style="bold")
    shown = [c for c in (view.columns or result.columns) if c in result.columns]
    index = [result.columns.index(c) for c in shown]
    for column, i in zip(shown, index):
        numeric = any(isinstance(r[i], (int, float)) and not isinstance(r[i], bool) for r in result.rows[:20])
        table.add_column(_safe(column), justify="right" if numeric else "left", overflow="fold")
    for row in result.rows:
        table.add_row(*(_safe(_cell(c, row[i])) for c, i in zip(shown, index)))
    _out.print(table)
    for note in view.notes:
        _out.print(f"[dim]{_safe(note)}[/dim]")


def ingest_summary(result: LoadResult) -> None:
    for f in result.files:
        if f.source_id is None:
            _out.print(f"[yellow]skipped[/yellow] {_safe(f.path)}: already ingested for model {_safe(result.model)} "
                       f"({_safe(f.duplicate_of)})")
        else:
            _out.print(f"[green]ingested[/green] {_safe(f.path)} as {_safe(f.format)} ({f.role}): {f.rows:,} rows")
        for warning in f.warnings:
            warn(warning)
    for note_text in result.notes:
        warn(note_text)
    if result.nothing_new:
        _out.print(f"nothing new: every file was already in the database for model {_safe(result.model)}")
    elif result.run_label:
        _out.print(f"model {_safe(result.model)}, run {_safe(result.run_label)}")
    else:
        _out.print(f"model {_safe(result.model)}")


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
                  console=_err, transient=False) as bar:
        def update(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = bar.add_task(stage, total=total)
            bar.update(bars[stage], completed=done, total=total)
        yield update


def _safe(text) -> str:
    """Any name or value as text in Rich's markup: no style (`[bold]`), no broken tag
    (`[/]`), no terminal escape sequence."""
    return escape(plain(str(text)))


def warn(message: str) -> None:
    """A warning on standard error, as plain text: Rich would turn `file.txt:100:` into an
    emoji and wrap a long path; a warning is read, searched and copied as it is."""
    sys.stderr.write(f"warning: {plain(message)}\n")
    sys.stderr.flush()


def note(message: str) -> None:
    """A remark on standard error, so that standard output stays the exported data."""
    _err.print(f"[dim]{_safe(message)}[/dim]", highlight=False)


def error(message: str) -> None:
    _err.print(f"[bold red]error:[/bold red] {_safe(message)}", highlight=False, soft_wrap=True)


def info(message: str) -> None:
    _out.print(_safe(message), highlight=False)
