"""Where the SQL files are: in the repository (editable install, tests) or in the wheel.

The repository keeps schema/ and queries/ at its top level; a built wheel carries them
as hotdb/_sql/schema and hotdb/_sql/queries (pyproject.toml, force-include).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


@cache
def sql_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_sql" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"hotdb's {name}/ folder is missing from the installation ({_PACKAGE})")


def schema_files() -> list[Path]:
    return sorted(sql_dir("schema").glob("[0-9][0-9][0-9][0-9]_*.sql"))


def query_files() -> list[Path]:
    return sorted(sql_dir("queries").glob("*.sql"))
