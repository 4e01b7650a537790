"""Lakes of the folder layout hotdb wrote before the Delta lake (hotdb/store/lake.py),
read only: `hotdb lake convert` moves one into Delta tables once; until then every read
command works on it and writes are refused.

    LAKE/model=<name>/run=<label>/<table>.parquet    an ingest's rows
    LAKE/model=<name>/_replaced/<folder>              folders a compaction replaced
    LAKE/model=<name>/run=<...>/_replaces.json        ... listed by the folder that replaced them

Lakes written before schema 6 kept nodes whole (`nodes.parquet`); they are read as one
signature per node. Stored matches are versioned by `computed_at`: readers keep each
run's newest (queries/lake/kernel_match_results.sql).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from hotdb.resources import sql, sql_names
from hotdb.store.connection import Store

REPLACES = "_replaces.json"


def is_legacy(root: Path) -> bool:
    return any(p.is_dir() for p in root.glob("model=*"))


def _replaced(model_dir: Path, folders: list[Path]) -> set[str]:
    """Names of the folders (`run=...`) of a model that a compaction replaced."""
    names = {p.name for p in (model_dir / "_replaced").glob("*")}
    for folder in folders:
        try:
            names.update(json.loads((folder / REPLACES).read_text()))
        except (FileNotFoundError, ValueError):
            continue  # no marker, or a damaged one a killed compaction left: not a replacement
    return names


def _legacy_sql(table: str) -> str | None:
    """How a table is read from the `nodes.parquet` files of lakes written before schema 6."""
    return sql("lake", f"legacy_{table}") if f"legacy_{table}" in sql_names("lake") else None


class LegacyLake:
    def __init__(self, root: Path):
        self.root = root

    def model_dirs(self) -> list[Path]:
        return sorted(p for p in self.root.glob("model=*") if p.is_dir())

    def folders(self, model_dir: Path | None = None) -> list[Path]:
        """Landed ingest folders, minus those a compaction replaced."""
        live = []
        for directory in [model_dir] if model_dir is not None else self.model_dirs():
            found = sorted(p for p in directory.glob("run=*") if p.is_dir())
            gone = _replaced(directory, found)
            live += [f for f in found if f.name not in gone]
        return live

    @staticmethod
    def _files(table: str, folders: list[Path]) -> list[str]:
        return [str(f / f"{table}.parquet") for f in folders if (f / f"{table}.parquet").exists()]

    def relation(self, con: duckdb.DuckDBPyConnection, table: str, folders: list[Path], table_sql: str):
        """A table's rows in these folders (old layouts included) as views over the files
        (no path is written into SQL, only the views' names); None when none holds it."""
        views = []
        for kind, query, files in (("new", table_sql, self._files(table, folders)),
                                   ("old", _legacy_sql(table), self._files("nodes", folders) if _legacy_sql(table) else [])):
            if files:
                view = f"_lake_{kind}_{table}"
                con.read_parquet(files, union_by_name=True, hive_partitioning=False).query("files", query).create_view(view)
                views.append(view)
        return " UNION ALL BY NAME ".join(f"FROM {view}" for view in views) or None

    def fill(self, store: Store, tables: dict, table_sql, model_dir: Path | None = None) -> None:
        """Views over the files (of one model's folder, or all) in place of the store's tables."""
        folders = self.folders(model_dir)
        for table in tables:
            relation = self.relation(store.con, table, folders, table_sql(table))
            if relation is not None:
                store.con.execute(f"ALTER TABLE {table} RENAME TO _lake_columns_{table}")
                store.con.sql(f"FROM _lake_columns_{table} UNION ALL BY NAME {relation}").create_view(table)
