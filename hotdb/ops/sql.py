"""Ad-hoc SQL over hotdb's tables and views, read-only.

The database file is opened read-only, and before the user's statement runs the
connection gives up everything that reaches outside it: files (`COPY ... TO`, `EXPORT`,
reading other files; a lake's reader keeps reading its own folder), other databases
(`ATTACH`), extensions; `lock_configuration` then keeps a statement from taking that back. Only queries are run (SELECT and its forms:
FROM ..., WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE; and EXPLAIN).
"""

from __future__ import annotations

import threading

from hotdb import limits
from hotdb.errors import BadArgument, UsageError
from hotdb.result import Result
from hotdb.store.database import Database

_LOCKDOWN = ("SET enable_external_access = false", "SET autoinstall_known_extensions = false",
             "SET autoload_known_extensions = false", "SET lock_configuration = true")


def sql(database: Database, text: str) -> Result:
    """One query over the tables and views; anything that would write is refused."""
    import duckdb

    if not text or not text.strip():
        raise BadArgument("no SQL given: pass one query, e.g. hotdb sql \"SELECT * FROM runs\"")
    with database.reader() as store:
        try:
            statements = store.con.extract_statements(text)
        except duckdb.Error as exc:
            raise UsageError(f"SQL error: {_first_line(exc)}") from None
        if len(statements) != 1:
            raise UsageError(f"hotdb sql runs one query at a time; this text holds {len(statements)} statements")
        statement = statements[0]
        kind = statement.type.name
        if kind not in ("SELECT", "EXPLAIN"):
            article = "an" if kind[0] in "AEIOU" else "a"
            raise UsageError(f"hotdb sql only reads: {article} {kind} statement is refused (queries: SELECT, FROM, "
                             "WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)")
        if database.lake is not None:  # the lake's views read its files, and nothing else may be read
            store.con.execute("SET allowed_directories = [$root]", {"root": str(database.lake.root.resolve()) + "/"})
        for setting in _LOCKDOWN:
            store.con.execute(setting)
        timeout = limits.sql_timeout_s()
        timer = threading.Timer(timeout, store.con.interrupt)
        timer.start()
        try:
            cursor = store.con.execute(statement.query)
            return Result([d[0] for d in cursor.description], cursor.fetchall())
        except duckdb.InterruptException:
            raise UsageError(f"the query ran past {timeout:g} s and was stopped (HOTDB_SQL_TIMEOUT sets the "
                             "limit)") from None
        except duckdb.Error as exc:
            raise UsageError(f"SQL error: {_first_line(exc)}") from None
        finally:
            timer.cancel()


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
