"""Reading the SQL files: a view's (or macro's) header comment is its documentation.

    -- One row per ...            <- what a row is (the view's comment)
    --
    -- @column run_id  the run    <- one per column (continuation lines indented)
    CREATE OR REPLACE VIEW name AS ...

A macro documents its parameters with `@param`. Names starting with `_` are private:
they are created and commented like the others but left out of the public docs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_VIEW = re.compile(r"CREATE\s+OR\s+REPLACE\s+(VIEW|MACRO)\s+(\w+)", re.I)
_COLUMN = re.compile(r"^@(column|param)\s+(\w+)\s+(.*)$")


@dataclass
class ViewFile:
    path: Path
    name: str
    description: str
    columns: dict[str, str] = field(default_factory=dict)  # what each column of a row is
    sql: str = ""
    kind: str = "view"  # or "macro"
    params: dict[str, str] = field(default_factory=dict)  # a macro's parameters

    @property
    def private(self) -> bool:
        return self.name.startswith("_")

    @property
    def table_macro(self) -> bool:
        return self.kind == "macro" and bool(re.search(r"\bAS\s+TABLE\b", self.sql, re.I))


def read_view(path: Path) -> ViewFile:
    sql = path.read_text(encoding="utf-8")
    match = _VIEW.search(sql)
    if not match:
        raise ValueError(f"{path}: no 'CREATE OR REPLACE VIEW name' (or MACRO) statement")
    description: list[str] = []
    documented: dict[str, dict[str, str]] = {"column": {}, "param": {}}
    current: tuple[str, str] | None = None
    for line in sql[: match.start()].splitlines():
        if not line.startswith("--"):
            continue
        text = line[2:].strip()
        if m := _COLUMN.match(text):
            current = (m.group(1), m.group(2))
            documented[m.group(1)][m.group(2)] = m.group(3).strip()
        elif current is not None and text:
            documented[current[0]][current[1]] += " " + text
        elif current is None:
            description.append(line[3:] if line.startswith("-- ") else line[2:])
    return ViewFile(path, match.group(2), "\n".join(description).strip(), documented["column"], sql,
                    match.group(1).lower(), documented["param"])


def sql_statements(path: Path) -> list[str]:
    """The statements of a SQL file of several, each ending with ';' at the end of a line."""
    text = path.read_text(encoding="utf-8")
    return [part.strip() for part in re.split(r";[ \t]*$", text, flags=re.M) if part.strip() and
            any(not line.lstrip().startswith("--") for line in part.strip().splitlines())]
