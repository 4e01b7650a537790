"""Reading the SQL files: a view's header comment is its documentation.

    -- One row per ...            <- what a row is (the view's comment)
    --
    -- @column run_id  the run    <- one per column (continuation lines indented)
    CREATE OR REPLACE VIEW name AS ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_VIEW = re.compile(r"CREATE\s+OR\s+REPLACE\s+VIEW\s+(\w+)", re.I)
_COLUMN = re.compile(r"^@column\s+(\w+)\s+(.*)$")


@dataclass
class ViewFile:
    path: Path
    name: str
    description: str
    columns: dict[str, str] = field(default_factory=dict)
    sql: str = ""


def read_view(path: Path) -> ViewFile:
    sql = path.read_text(encoding="utf-8")
    match = _VIEW.search(sql)
    if not match:
        raise ValueError(f"{path}: no 'CREATE OR REPLACE VIEW name' statement")
    description: list[str] = []
    columns: dict[str, str] = {}
    current: str | None = None
    for line in sql[: match.start()].splitlines():
        if not line.startswith("--"):
            continue
        text = line[2:].strip()
        if m := _COLUMN.match(text):
            current = m.group(1)
            columns[current] = m.group(2).strip()
        elif current is not None and text:
            columns[current] += " " + text
        elif current is None:
            description.append(line[3:] if line.startswith("-- ") else line[2:])
    return ViewFile(path, match.group(1), "\n".join(description).strip(), columns, sql)


def sql_statements(path: Path) -> list[str]:
    """The statements of a SQL file of several, each ending with ';' at the end of a line."""
    text = path.read_text(encoding="utf-8")
    return [part.strip() for part in re.split(r";[ \t]*$", text, flags=re.M) if part.strip() and
            any(not line.lstrip().startswith("--") for line in part.strip().splitlines())]
