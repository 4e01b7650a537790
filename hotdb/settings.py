"""Settings every DuckDB connection of hotdb takes: from the environment, and its own."""

from __future__ import annotations

import os

import duckdb


def connect(database: str = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with hotdb's settings. HOTDB_MEMORY_LIMIT (e.g. 500MB) caps
    DuckDB's buffer pool, and with it the memory of an ingest of any size: what does not
    fit spills to disk (DuckDB's default is 80 % of RAM)."""
    limit = os.environ.get("HOTDB_MEMORY_LIMIT")
    con = duckdb.connect(database, read_only=read_only, config={"memory_limit": limit} if limit else {})
    # DuckDB draws a progress bar for queries over 2 s on stdout, into `-f json|csv` output
    con.execute("SET enable_progress_bar = false")
    return con
