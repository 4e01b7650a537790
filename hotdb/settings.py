"""Settings every DuckDB connection of hotdb takes from the environment."""

from __future__ import annotations

import os


def duckdb_config() -> dict[str, str]:
    """HOTDB_MEMORY_LIMIT (e.g. 500MB) caps DuckDB's buffer pool, and with it the memory of
    an ingest of any size: what does not fit spills to disk. DuckDB's default is 80 % of RAM."""
    limit = os.environ.get("HOTDB_MEMORY_LIMIT")
    return {"memory_limit": limit} if limit else {}
