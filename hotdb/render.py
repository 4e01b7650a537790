"""Rendering results for a terminal (Rich tables), JSON and CSV. The only module that imports Rich."""

from __future__ import annotations

import csv
import io
import json
import sys
from datetime import datetime

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hotdb.api import Result
from hotdb.store.loader import LoadResult

FORMATS = ("table", "json", "csv")

_out = Console(soft_wrap=False)
_err = Console(stderr=True)

# How many list items a table cell shows before "(+N more)".
_LIST_ITEMS = 3


def _json_default(value):
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def render(result: Result, fmt: str = "table") -> None:
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
        _table(result)


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
        if column.endswith("_pct") or column == "confidence":
            return f"{value:.1f}" if column != "confidence" else f"{value:.2f}"
        return f"{value:,.1f}"
    if isinstance(value, list):
        items = [str(v) for v in value]
        shown = ", ".join(items[:_LIST_ITEMS])
        return shown + (f" (+{len(items) - _LIST_ITEMS} more)" if len(items) > _LIST_ITEMS else "")
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


def _table(result: Result) -> None:
    table = Table(title=result.title, title_justify="left", header_style="bold")
    for column in result.columns:
        numeric = any(isinstance(r[result.columns.index(column)], (int, float)) and
                      not isinstance(r[result.columns.index(column)], bool) for r in result.rows[:20])
        table.add_column(column, justify="right" if numeric else "left",
                         overflow="fold", max_width=60 if column in ("task_args", "workload", "candidate_keys") else None)
    for row in result.rows:
        table.add_row(*(_cell(c, v) for c, v in zip(result.columns, row)))
    _out.print(table)
    for note in result.notes:
        _out.print(f"[dim]{escape(note)}[/dim]")


def ingest_summary(result: LoadResult) -> None:
    for f in result.files:
        if f.source_id is None:
            _out.print(f"[yellow]skipped[/yellow] {escape(f.path)}: already ingested for model {escape(result.model)} ({escape(f.duplicate_of)})")
        else:
            _out.print(f"[green]ingested[/green] {escape(f.path)} as {f.format} ({f.role}): {f.rows:,} rows")
        for warning in f.warnings:
            _err.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)
    if result.nothing_new:
        _out.print(f"nothing new: every file was already in the database for model {result.model}")
    elif result.run_label:
        _out.print(f"model {result.model}, run {result.run_label}")
    else:
        _out.print(f"model {result.model}")


def error(message: str) -> None:
    _err.print(f"[bold red]error:[/bold red] {escape(message)}", highlight=False, soft_wrap=True)


def info(message: str) -> None:
    _out.print(escape(message), highlight=False)
