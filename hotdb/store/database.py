"""Where hotdb keeps its data: one DuckDB file, or a lake of Parquet files (lake.py).

Use cases open a reader (the file read-only, beside other readers; or the lake's views)
or store an ingest (one transaction in the file; new files in the lake), and run named
SQL files (queries/commands/) through `query`. Nothing else of the storage shows.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from hotdb.errors import UsageError
from hotdb.result import Result
from hotdb.store.connection import Store, default_path


class Database:
    def __init__(self, path: str | Path | None = None, *, lake: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self.lake = None
        if lake is not None:
            from hotdb.store.lake import Lake

            self.lake = Lake(lake)

    @property
    def file(self) -> Path:
        return self.path if self.path is not None else default_path()

    @contextmanager
    def reader(self):
        """A store to read: the file opened read-only, or the lake's views."""
        store = self.lake.reader() if self.lake is not None else Store(self.file, create=False, read_only=True)
        try:
            yield store
        finally:
            store.close()

    def load(self, model: str, items, **options):
        """Store one ingest: one transaction in the file, or new files in the lake."""
        from hotdb.store.loader import load

        if self.lake is not None:
            self.lake.root.mkdir(parents=True, exist_ok=True)
            return self.lake.ingest(model, items, **options)
        with Store(self.file, create=True) as store:
            return load(store, model, items, **options)

    def upgrade(self) -> tuple[int, int]:
        """Bring the file to this hotdb: its migrations, views and stored matches (what a
        read never does). (schema version before, after)."""
        if self.lake is not None:
            raise UsageError("a lake needs no upgrade: its readers make this hotdb's views in memory")
        before = Store(self.file, create=False, read_only=True, check=False)
        try:
            version = before.schema_version()
        finally:
            before.close()
        with Store(self.file, create=False) as store:
            return version, store.schema_version()

    def lake_at(self, folder: str | Path, create: bool = False):
        from hotdb.store.lake import Lake

        if not create and not Path(folder).is_dir():
            raise UsageError(f"no lake at {folder}")
        Path(folder).mkdir(parents=True, exist_ok=True)
        return Lake(folder)


def query(store: Store, name: str, params: dict | None = None, **facts) -> Result:
    """Run queries/commands/<name>.sql with named parameters."""
    cursor = store.con.execute(store.command_sql(name), params or {})
    return Result([d[0] for d in cursor.description], cursor.fetchall(), facts)


def value(store: Store, name: str, params: dict | None = None):
    """The first value of queries/commands/<name>.sql, or None when it returns no row."""
    result = query(store, name, params)
    return result.rows[0][0] if result.rows else None
