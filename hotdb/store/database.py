"""Where hotdb keeps its data: one DuckDB file, or a lake of Delta tables (lake.py).

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
    def __init__(self, path: str | Path | None = None, *, lake: str | Path | None = None, as_of: str | None = None):
        self.path = Path(path) if path is not None else None
        self.as_of = as_of
        self.lake = None
        if lake is not None:
            from hotdb.store.lake import Lake

            self.lake = Lake(lake, as_of)
        elif as_of is not None:
            raise UsageError("--as-of reads an older version of a lake: give --lake too")

    @property
    def file(self) -> Path:
        return self.path if self.path is not None else default_path()

    @contextmanager
    def reader(self, external_access: bool = True):
        """A store to read: the file opened read-only, or the lake's views (without
        `external_access`, views that read no file once the connection may open none)."""
        store = self.lake.reader(external_access) if self.lake is not None else Store(self.file, create=False, read_only=True)
        try:
            yield store
        finally:
            store.close()

    def load(self, model: str, items, **options):
        """Store one ingest: one transaction in the file, or one commit of the lake."""
        from hotdb.store.loader import load

        if self.lake is not None:
            from hotdb.store import lake_compact

            result = self.lake.ingest(model, items, **options)
            if not result.nothing_new:
                lake_compact.after_commit(self.lake)
            return result
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

    def lake_at(self, where: str | Path, create: bool = False):
        """The lake at a folder or URI (s3://...), at --as-of when given (a read of an older
        version: writing it is refused); a folder must exist unless `create`."""
        from hotdb.store.lake import Lake

        lake = Lake(where, self.as_of)
        if lake.local is not None and not create and not lake.local.is_dir():
            raise UsageError(f"no lake at {where}")
        return lake


def query(store: Store, name: str, params: dict | None = None, **facts) -> Result:
    """Run queries/commands/<name>.sql with named parameters."""
    cursor = store.con.execute(store.command_sql(name), params or {})
    return Result([d[0] for d in cursor.description], cursor.fetchall(), facts)


def value(store: Store, name: str, params: dict | None = None):
    """The first value of queries/commands/<name>.sql, or None when it returns no row."""
    result = query(store, name, params)
    return result.rows[0][0] if result.rows else None
