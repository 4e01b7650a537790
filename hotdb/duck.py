"""A DuckDB connection with hotdb's settings: the one factory, for the store and for the
readers of ingest/ that let DuckDB scan a large file; and the temporary names a step
makes on one, dropped whatever happened (`scratch`)."""

from __future__ import annotations

from contextlib import contextmanager

import duckdb

from hotdb import limits


def connect(database: str = ":memory:", read_only: bool = False, *, whole_objects: bool = False,
            temp_directory: str | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with hotdb's settings. HOTDB_MEMORY_LIMIT (default 384 MiB,
    limits.py) caps DuckDB's buffer pool, and with it the memory of an ingest of any size:
    what does not fit spills to disk. A reader of `whole_objects` (one JSON object of any
    size, which DuckDB cannot spill) is capped only when the variable is set. A database in
    memory spills a window's rows only where `temp_directory` is given."""
    # no extension is fetched or loaded behind the user's back (a SQLite file given as a
    # database would make DuckDB download its reader)
    config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    limit = limits.memory_limit(default=not whole_objects)
    if limit:
        config["memory_limit"] = limit
    if temp_directory is not None:
        config["temp_directory"] = temp_directory
    con = duckdb.connect(database, read_only=read_only, config=config)
    # DuckDB draws a progress bar for queries over 2 s on stdout, into `-f json|csv` output
    con.execute("SET enable_progress_bar = false")
    return con


def one_line(exc: Exception) -> str:
    """An error in one line: its first (the rest of a DuckDB error is hints and context)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextmanager
def scratch(con: duckdb.DuckDBPyConnection, *, registered: tuple[str, ...] = (), tables: tuple[str, ...] = (),
            views: tuple[str, ...] = ()):
    """The temporary names a step makes (registered Arrow tables, temp tables and views,
    hotdb's own constant names), gone after it, also when it failed: DuckDB may then have
    aborted the transaction, and a failing DROP would hide the first error (the rollback
    that follows drops them anyway)."""
    try:
        yield
    finally:
        for name in registered:
            _quietly(lambda: con.unregister(name))
        for kind, names in (("TABLE", tables), ("VIEW", views)):
            for name in names:
                _quietly(lambda: con.execute(f"DROP {kind} IF EXISTS {name}"))


def _quietly(step) -> None:
    try:
        step()
    except duckdb.Error:
        pass
