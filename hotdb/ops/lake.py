"""Lakes: a database file copied into a lake of Parquet files, a lake's small files merged,
and the manifests other engines read a lake by (the storage itself: hotdb/store/lake.py)."""

from __future__ import annotations

from pathlib import Path

from hotdb.store.database import Database


def lake_import(database: Database, lake: str | Path) -> dict:
    """Copy the database file into the lake at `lake` (made if missing): one folder per
    run, ids moved to the lake's. Counts of the models and runs imported."""
    return database.lake_at(lake, create=True).export(database.file)


def lake_compact(database: Database, lake: str | Path) -> dict:
    """Merge each model's folders of the lake into one, re-matching its runs; safe while
    others write. Counts of the folders and models compacted."""
    return database.lake_at(lake).compact()


def lake_manifests(database: Database, lake: str | Path, prefix: str | None = None) -> dict:
    """A symlink manifest per table of the lake (LAKE/_manifests/<table>/manifest) for
    Trino, Hive and Athena, with file URIs under `prefix`. Files per table."""
    return database.lake_at(lake).manifests(prefix)
