"""The database: open (waiting for another writer's lock), migrate, keep views current.

Schema changes are numbered files in schema/, applied in order, each in its own
transaction and recorded in schema_migrations. Views in queries/ are recreated whenever
their text changes (a hash is kept in hotdb_meta), with the header comments applied as
COMMENT ON VIEW / COLUMN so that any DuckDB client sees the documentation.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import time
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

import duckdb

from hotdb import limits
from hotdb.duck import connect
from hotdb.errors import DatabaseError
from hotdb.resources import query_files, schema_files, sql

DEFAULT_DB = "hotdb.duckdb"
_CREATE = re.compile(r"^CREATE OR REPLACE (VIEW|MACRO)\b", re.MULTILINE)


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back, when there is still a transaction: DuckDB ends one itself on some
    failures (a full disk), and a second error would hide the first."""
    try:
        con.rollback()
    except duckdb.Error:
        pass


def default_path() -> Path:
    return Path(os.environ.get("HOTDB_DB") or DEFAULT_DB)


def _connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    timeout = limits.lock_timeout_s()
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        try:
            return connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise DatabaseError(f"{path}: cannot open the database: {_why_not(path, exc)}") from None
            if time.monotonic() >= deadline:
                raise DatabaseError(
                    f"{path}: another process holds the database lock and did not release it within "
                    f"{timeout:g} s (set HOTDB_LOCK_TIMEOUT to wait longer)") from None
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
        except duckdb.Error as exc:
            raise DatabaseError(f"{path}: cannot open the database: {_why_not(path, exc)}") from None


def _why_not(path: Path, exc: duckdb.Error) -> str:
    """Why DuckDB could not open `path`, in one line: a SQLite file is named as one (DuckDB
    would tell the user to install its sqlite extension, which hotdb never loads)."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        head = b""
    if head == b"SQLite format 3\x00":
        return "it is a SQLite database; hotdb keeps its data in a DuckDB file (give --db a new or a hotdb .duckdb path)"
    return str(exc).strip().splitlines()[0]


def latest_schema_version() -> int:
    return max(int(p.name[:4]) for p in schema_files())


class Store:
    """One open database. Use as a context manager; close() releases the file lock. A
    read-only store is `check`ed: of this hotdb's schema, with its views (in memory); a
    writable one is migrated and its views made this hotdb's, unless the caller knows it is
    (check=False: a copy of the empty database just made). A new file starts as a copy of
    the `template` (empty_database), when the cache holds one."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True, read_only: bool = False,
                 check: bool = True, template: bool = True):
        self.path = Path(path) if path is not None else default_path()
        if not create and str(self.path) != ":memory:" and not self.path.exists():
            raise DatabaseError(f"no database at {self.path}; run `hotdb ingest` first, or pass --db / set HOTDB_DB")
        # readers share the file and never change it: an older database is refused with what
        # to run, another hotdb's views are replaced in this connection's memory only
        read_only = read_only and str(self.path) != ":memory:"
        if create and template and not read_only and str(self.path) != ":memory:" and not self.path.exists():
            _copy_empty(self.path)
        self.con = _connect(self.path, read_only=read_only)
        try:
            if read_only and check and not self._current():
                self._check_readable()
                self._views_in_memory()
            if not read_only and check:
                migrated = self.migrate()
                self.refresh_views(force=bool(migrated))
        except BaseException:
            self.con.close()
            raise

    def _current(self) -> bool:
        """Schema and views are those of this hotdb (a newer schema is refused later, in
        migrate). One query of constants (`_hotdb_stamp`, written with the views): every
        read opens the file, and reading the bookkeeping tables cost a command's start
        ~8 ms (bench/cli_start.py)."""
        try:
            version, digest = self.con.execute("SELECT schema_version, views_sha256 FROM _hotdb_stamp").fetchall()[0]
        except duckdb.CatalogException:  # a file older than the stamp, or none of hotdb's
            return False
        return version == latest_schema_version() and digest == views_digest()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    # -- schema ---------------------------------------------------------------------------
    def schema_version(self) -> int:
        exists = self.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'schema_migrations'").fetchall()[0][0]
        if not exists:
            return 0
        return self.con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()[0][0]

    def _check_newer(self, current: int) -> None:
        newest = latest_schema_version()
        if current > newest:
            raise DatabaseError(
                f"{self.path}: the database has schema version {current}, newer than this hotdb knows "
                f"({newest}); upgrade hotdb to open it")

    def _check_readable(self) -> None:
        """A read of a database of another schema: refused, saying what to run."""
        current = self.schema_version()
        self._check_newer(current)
        if current == 0:
            raise DatabaseError(f"{self.path}: holds no hotdb data (no schema); `hotdb ingest` stores some")
        if current < latest_schema_version():
            raise DatabaseError(f"{self.path}: made by an older hotdb (schema {current}, this one reads "
                                f"{latest_schema_version()}); run `hotdb upgrade` once to bring it up to date "
                                "(a read never changes the file)")

    def _views_in_memory(self) -> None:
        """This hotdb's views and macros as temporary ones, which DuckDB resolves before the
        file's: a read of a database another hotdb wrote leaves it as it was. Its stored
        matches stay those of the hotdb that wrote them until a write re-matches them."""
        from hotdb.store.sqlfiles import read_view  # parsing headers is a write's (or an old file's) cost

        items = [read_view(p) for p in query_files()]
        for item in _dependency_order(items):
            text = _CREATE.sub(r"CREATE OR REPLACE TEMP \1", item.sql, count=1)
            try:
                self.con.execute(text)
            except duckdb.Error as exc:
                raise DatabaseError(f"{item.path.name}: {exc}") from None

    def migrate(self) -> list[int]:
        current = self.schema_version()
        self._check_newer(current)
        pending = [path for path in schema_files() if int(path.name[:4]) > current]
        if not pending:
            return []
        from hotdb.workload.targets import canonical

        self.con.create_function("hotdb_canonical_target", canonical, ["VARCHAR"], "VARCHAR", side_effects=False)
        # one transaction for all: a new database is made in one commit, and a failed
        # migration leaves the database as it was
        self.con.begin()
        # a read trusts the stamp (_current): gone with the schema it described, whole or not at all
        self.con.execute("DROP VIEW IF EXISTS _hotdb_stamp")
        for path in pending:
            try:
                self.con.execute(path.read_text(encoding="utf-8"))
                self.con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)",
                                 [int(path.name[:4]), path.stem, datetime.now(timezone.utc)])
            except duckdb.Error as exc:
                rollback(self.con)
                raise DatabaseError(f"{self.path}: migration {path.name} failed: {exc}") from None
        self.con.commit()
        self.con.remove_function("hotdb_canonical_target")
        applied = [int(path.name[:4]) for path in pending]
        return applied

    # -- views ----------------------------------------------------------------------------
    def refresh_views(self, force: bool = False) -> None:
        files = query_files()
        digest = views_digest()
        current = self.con.execute("SELECT value FROM hotdb_meta WHERE key = 'views_sha256'").fetchall()
        if current and current[0][0] == digest and not force:
            if not self._current():  # a file of this hotdb's views, written before the stamp
                self._stamp(digest)
            return
        from hotdb.store.sqlfiles import read_view

        views = [read_view(p) for p in files]
        macros = [v for v in views if v.kind == "macro"]
        views = [v for v in views if v.kind == "view"]
        self.con.begin()
        try:
            made = self.con.execute("SELECT value FROM hotdb_meta WHERE key = 'views'").fetchall()
            for name in sorted(set(json.loads(made[0][0]) if made else []) - {v.name for v in views}):
                self.con.execute(f"DROP VIEW IF EXISTS {name}")  # a view this hotdb no longer defines (renamed)
            for item in _dependency_order(macros + views):
                try:
                    self.con.execute(item.sql)
                except duckdb.Error as exc:
                    raise DatabaseError(f"{item.path.name}: {exc}") from None
            comments = [f"COMMENT ON MACRO{' TABLE' if m.table_macro else ''} {m.name} IS {_quote(m.description)};"
                        for m in macros]
            for view in views:
                comments.append(f"COMMENT ON VIEW {view.name} IS {_quote(view.description)};")
                comments += [f"COMMENT ON COLUMN {view.name}.{column} IS {_quote(text)};" for column, text in view.columns.items()]
            self.con.execute("\n".join(comments))  # one script: ~300 statements, one call
            self.con.execute("INSERT OR REPLACE INTO hotdb_meta VALUES ('views_sha256', ?)", [digest])
            self._stamp(digest)
            # the stamp listed with the views: a hotdb that does not write it drops it as a view it
            # no longer defines when it writes its own views, so a read never trusts a stale one
            self.con.execute("INSERT OR REPLACE INTO hotdb_meta VALUES ('views', ?)",
                             [json.dumps([v.name for v in views] + ["_hotdb_stamp"])])
            # stored matches were decided by the old ladder (or by none, before 0004)
            from hotdb.store.rematch import rematch_models

            rematch_models(self.con)
            self.con.commit()
        except BaseException:
            rollback(self.con)
            raise

    def _stamp(self, digest: str) -> None:
        """What a read checks (_current), as constants: a query of them touches no table."""
        self.con.execute(f"CREATE OR REPLACE VIEW _hotdb_stamp AS SELECT {int(self.schema_version())} AS "
                         f"schema_version, '{digest}' AS views_sha256")  # a number and hex digits, never data

    def command_sql(self, name: str) -> str:
        """The text of queries/commands/<name>.sql."""
        return sql("commands", name)


@cache  # the installed SQL files do not change under a process; each store opened read them all
def views_digest() -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in query_files())).hexdigest()


def _dependency_order(views: list) -> list:
    """Views sorted so that each comes after the views its SQL names."""
    by_name = {v.name: v for v in views}
    ordered, done, visiting = [], set(), set()

    def visit(view) -> None:
        if view.name in done:
            return
        if view.name in visiting:
            raise DatabaseError(f"{view.path.name}: views depend on each other in a cycle")
        visiting.add(view.name)
        body = view.sql[view.sql.upper().index(" AS") :]
        for name, other in by_name.items():
            if name != view.name and re.search(rf"\b{name}\b", body):
                visit(other)
        visiting.discard(view.name)
        done.add(view.name)
        ordered.append(view)

    for view in views:
        visit(view)
    return ordered


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def empty_database() -> Path | None:
    """An empty database of this hotdb's schema, views and macros, made once per version
    in the user's cache (HOTDB_CACHE_DIR, else $XDG_CACHE_HOME/hotdb): a new database file
    starts as a copy of it (building the schema and views took 0.2 s of an ingest into a
    new file, bench/ingest.py), and a lake's reader opens it read-only (0.27 s a command).
    None when the cache cannot be written."""
    from hotdb.version import __version__

    # named by all that makes it: the SQL files, this module (what else a new file holds, the
    # stamp) and DuckDB's version (a file another DuckDB wrote may be one this one cannot open)
    made_of = hashlib.sha256(Path(__file__).read_bytes())
    for path in [*schema_files(), *query_files()]:
        made_of.update(path.read_bytes())
    name = f"empty-{__version__}-{duckdb.__version__}-{latest_schema_version()}-{made_of.hexdigest()[:16]}.duckdb"
    path = limits.cache_dir() / name
    if path.is_file():
        return path
    draft = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        store = Store(draft, template=False)
        try:
            store.con.execute("CHECKPOINT")  # on a full disk this fails here, not silently at close
        finally:
            store.close()
        _check_complete(draft)
        os.replace(draft, path)  # whole or not at all; processes racing to make it each make their own
    except (OSError, duckdb.Error, DatabaseError):
        return None
    finally:
        with contextlib.suppress(OSError):  # the folder may be what could not be made
            draft.unlink(missing_ok=True)
            Path(f"{draft}.wal").unlink(missing_ok=True)
    return path


def _check_complete(draft: Path) -> None:
    """A template is kept only when it holds all it was made of, in the file itself: a
    full disk once left the schema in a write-ahead log that the rename left behind, and
    every read after that found "no schema" (DatabaseError otherwise)."""
    if Path(f"{draft}.wal").exists():
        raise DatabaseError(f"{draft}: not checkpointed")
    con = duckdb.connect(str(draft), read_only=True)
    try:
        version, digest = con.execute("SELECT schema_version, views_sha256 FROM _hotdb_stamp").fetchall()[0]
    finally:
        con.close()
    if version != latest_schema_version() or digest != views_digest():
        raise DatabaseError(f"{draft}: incomplete")


def _copy_empty(path: Path) -> None:
    """A new database file at `path` as a copy of empty_database(), put in place whole
    (a link, which fails where another process made the file first); left to DuckDB to
    create when there is no template or the folder takes no link."""
    template = empty_database()
    if template is None or not path.parent.is_dir():
        return
    draft = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    try:
        shutil.copyfile(template, draft)
        os.link(draft, path)
    except OSError:
        pass  # made by another process meanwhile, or no links here: opened (or created) as it is
    finally:
        draft.unlink(missing_ok=True)
