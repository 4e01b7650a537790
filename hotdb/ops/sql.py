"""Ad-hoc SQL over hotdb's tables and views."""

from __future__ import annotations

from hotdb.errors import UsageError
from hotdb.result import Result
from hotdb.store.database import Database


def sql(database: Database, text: str) -> Result:
    """Any SQL over the tables and views (a reader: the database file is opened read-only)."""
    import duckdb

    with database.reader() as store:
        try:
            cursor = store.con.execute(text)
            return Result([d[0] for d in cursor.description], cursor.fetchall())
        except duckdb.Error as exc:
            raise UsageError(f"SQL error: {exc}") from None
