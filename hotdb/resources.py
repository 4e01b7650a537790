"""The SQL files: where they are, and the one way to read one.

The repository keeps schema/ and queries/ at its top level; a built wheel carries them
as hotdb/_sql/schema and hotdb/_sql/queries (pyproject.toml, force-include).

Every SQL file hotdb runs, other than the views and the schema, is
`queries/<folder>/<name>.sql`, read once per process by `sql(folder, name)`:

    commands/  what the use cases ask (hotdb/ops/, through store/database.py: query)
    load/      the loader's writes (hotdb/store/loader.py, rematch.py)
    lake/      the lake's reads and writes (hotdb/store/lake.py)
    read/      the large-file report reader (hotdb/ingest/profile/report/streamed_csv.py), the debug dump reader (hotdb/ingest/profile/debug_dump_duckdb.py)

This module imports nothing of hotdb, so that every layer may use it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
FOLDERS = ("commands", "load", "lake", "read")


@cache
def sql_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_sql" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"hotdb's {name}/ folder is missing from the installation ({_PACKAGE})")


def schema_files() -> list[Path]:
    return sorted(sql_dir("schema").glob("[0-9][0-9][0-9][0-9]_*.sql"))


def query_files() -> list[Path]:
    """The views and macros (queries/*.sql), not the files of the folders below."""
    return sorted(sql_dir("queries").glob("*.sql"))


def sql_path(folder: str, name: str) -> Path:
    if folder not in FOLDERS:
        raise ValueError(f"no SQL folder {folder!r} (one of {', '.join(FOLDERS)})")
    return sql_dir("queries") / folder / f"{name}.sql"


@cache
def sql_names(folder: str) -> frozenset[str]:
    """The names of the files of queries/<folder>/."""
    return frozenset(path.stem for path in sql_path(folder, "_").parent.glob("*.sql"))


@cache
def sql(folder: str, name: str) -> str:
    """The text of queries/<folder>/<name>.sql."""
    return sql_path(folder, name).read_text(encoding="utf-8")
