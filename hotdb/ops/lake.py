"""Lakes: a database file copied into a lake of Delta tables, a lake compacted, exported
as plain Parquet, or converted from the folder layout (the storage: hotdb/store/lake.py)."""

from __future__ import annotations

from pathlib import Path

from hotdb.store.database import Database


def lake_import(database: Database, lake: str | Path) -> dict:
    """Copy the database file into the lake at `lake` (made if missing): one commit per
    model, ids moved to the lake's; ingests whose files it holds are skipped. Counts of
    the models and runs imported and the ingests skipped."""
    from hotdb.store.lake_import import import_database

    return import_database(database.lake_at(lake, create=True), database.file)


def lake_compact(database: Database, lake: str | Path) -> dict:
    """Merge the lake's small files, delete rows of commits that never landed, vacuum;
    safe while others read and write. Counts of the tables, files removed and orphan commits."""
    from hotdb.store.lake_compact import compact

    return compact(database.lake_at(lake))


def lake_export_parquet(database: Database, lake: str | Path, folder: Path) -> dict:
    """The lake's committed rows as plain Parquet (FOLDER/<table>/data.parquet), for
    engines without Delta. Rows per table."""
    return database.lake_at(lake).export_parquet(Path(folder))


def lake_convert(database: Database, lake: str | Path) -> dict:
    """Rewrite a lake of the folder layout (hotdb 0.2) as Delta tables, once. Counts of
    the models and runs converted."""
    from hotdb.store.lake_import import convert

    return convert(database.lake_at(lake))
