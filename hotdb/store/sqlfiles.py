"""Reading the SQL files: a view's (or macro's) header comment is its documentation.

    -- One row per ...            <- what a row is (the view's comment)
    --
    -- @column run_id  the run    <- one per column (continuation lines indented)
    CREATE OR REPLACE VIEW name AS ...

A macro documents its parameters with `@param`. Names starting with `_` are private:
they are created and commented like the others but left out of the public docs.

The files of queries/<folder>/ (commands, load, lake, read) are one statement each, their
header saying the same of their parameters, and the columns they return (`read_query`).
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


@dataclass
class QueryFile:
    """A file of queries/<folder>/: one statement, its header saying what it takes and gives.

        -- What the query answers.
        --
        -- @param run_id  the run's id          <- one per $name the body uses
        -- @returns rank, task_name, ...        <- its result columns, in order (continued
        --          time_us, calls                 on indented lines); `*`: the columns of
                                                   the table it reads
    """

    path: Path
    description: str
    params: dict[str, str] = field(default_factory=dict)
    returns: list[str] = field(default_factory=list)
    sql: str = ""

    @property
    def used_params(self) -> list[str]:
        """The $names its body uses, in order of first use."""
        body = "\n".join(line.split("--", 1)[0] for line in self.sql.splitlines())
        body = re.sub(r"'(?:[^']|'')*'", "''", body)  # a $ inside a string literal is no parameter
        return list(dict.fromkeys(re.findall(r"\$(\w+)", body)))


def read_query(path: Path) -> QueryFile:
    sql = path.read_text(encoding="utf-8")
    description: list[str] = []
    params: dict[str, str] = {}
    returns: list[str] = []
    current: str | None = None  # the @param or @returns a continuation line belongs to
    for line in sql.splitlines():
        if not line.startswith("--"):
            break
        text = line[2:].strip()
        if m := _COLUMN.match(text):
            if m.group(1) != "param":
                raise ValueError(f"{path}: @{m.group(1)} in a query's header (expected @param or @returns)")
            current = m.group(2)
            params[current] = m.group(3).strip()
        elif text.startswith("@returns"):
            current = "@returns"
            returns += [c.strip() for c in text.removeprefix("@returns").split(",") if c.strip()]
        elif current == "@returns" and text:
            returns += [c.strip() for c in text.split(",") if c.strip()]
        elif current is not None and text:
            params[current] += " " + text
        elif current is None:
            description.append(line[3:] if line.startswith("-- ") else line[2:])
    return QueryFile(path, "\n".join(description).strip(), params, returns, sql)
