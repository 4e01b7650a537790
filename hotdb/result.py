"""What a use case returns: columns, rows, and the facts a renderer puts into words."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

# Columns that hold JSON text, decoded in records() (and so in JSON output)
JSON_COLUMNS = frozenset({"task_args"})


@dataclass
class Result:
    """A table of results. `facts` are what it is about and what it says beyond its rows
    (the run, the coverage asked and reached, counts): hotdb/cli/words.py turns them into a
    title and notes; the Python API hands them over as they are."""

    columns: list[str]
    rows: list[tuple]
    facts: dict = field(default_factory=dict)

    def records(self) -> list[dict]:
        """One dict per row, JSON columns decoded."""
        out = []
        for row in self.rows:
            record = dict(zip(self.columns, row))
            for column in JSON_COLUMNS & record.keys():
                if isinstance(record[column], str):
                    record[column] = json.loads(record[column])
            out.append(record)
        return out

    def column(self, name: str) -> list:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]
