"""Ad-hoc SQL over hotdb's tables and views, read-only.

The database file is opened read-only, and before the user's statement runs the
connection gives up everything that reaches outside it: files (`COPY ... TO`, `EXPORT`,
reading other files; a lake's views scan Arrow datasets, which need no file access), other databases
(`ATTACH`), extensions; `lock_configuration` then keeps a statement from taking that back. Only queries are run (SELECT and its forms:
FROM ..., WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE; and EXPLAIN). A query runs within a
time limit (HOTDB_SQL_TIMEOUT) and DuckDB's memory limit (HOTDB_MEMORY_LIMIT), each of
which a call may set for itself.
"""

from __future__ import annotations

import math
import threading

from hotdb import limits
from hotdb.duck import one_line
from hotdb.errors import BadArgument, QueryLimit, UsageError
from hotdb.result import Result
from hotdb.store.database import Database

_LOCKDOWN = ("SET enable_external_access = false", "SET autoinstall_known_extensions = false",
             "SET autoload_known_extensions = false", "SET lock_configuration = true")


def sql(database: Database, text: str, *, timeout_s: float | None = None,
        memory_limit: int | str | None = None) -> Result:
    """One query over the tables and views; anything that would write is refused. It is
    stopped after `timeout_s` seconds (default HOTDB_SQL_TIMEOUT) or when DuckDB needs more
    than `memory_limit`, bytes or a size such as "2GB" (default HOTDB_MEMORY_LIMIT)."""
    import duckdb

    if not text or not text.strip():
        raise BadArgument("no SQL given: pass one query, e.g. hotdb sql \"SELECT * FROM runs\"")
    timeout = limits.sql_timeout_s() if timeout_s is None else _seconds(timeout_s)
    memory = limits.memory_bytes() if memory_limit is None else _bytes(memory_limit)
    with database.reader(external_access=False) as store:
        try:
            statements = store.con.extract_statements(text)
        except duckdb.Error as exc:
            raise UsageError(f"SQL error: {one_line(exc)}") from None
        if len(statements) != 1:
            raise UsageError(f"hotdb sql runs one query at a time; this text holds {len(statements)} statements")
        statement = statements[0]
        kind = statement.type.name
        if kind not in ("SELECT", "EXPLAIN"):
            article = "an" if kind[0] in "AEIOU" else "a"
            raise UsageError(f"hotdb sql only reads: {article} {kind} statement is refused (queries: SELECT, FROM, "
                             "WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)")
        store.con.execute(f"SET memory_limit = '{int(memory)}B'")
        for setting in _LOCKDOWN:
            store.con.execute(setting)
        timer = threading.Timer(timeout, store.con.interrupt)
        timer.start()
        try:
            cursor = store.con.execute(statement.query)
            return Result([d[0] for d in cursor.description], cursor.fetchall())
        except duckdb.InterruptException:
            raise QueryLimit(f"the query ran past {timeout:g} s and was stopped (HOTDB_SQL_TIMEOUT sets the "
                             "limit)", limit="timeout_s") from None
        except duckdb.OutOfMemoryException:
            raise QueryLimit(f"the query needed more than the {_size(memory)} of memory it may take and was stopped "
                             "(HOTDB_MEMORY_LIMIT sets the limit)", limit="memory_limit") from None
        except duckdb.Error as exc:
            raise UsageError(f"SQL error: {one_line(exc)}") from None
        finally:
            timer.cancel()


def _seconds(value: float) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value < limits.SQL_TIMEOUT_MINIMUM:
        raise BadArgument(f"timeout_s={value!r}: expected a number of seconds of at least "
                          f"{limits.SQL_TIMEOUT_MINIMUM:g}")
    return float(value)


def _bytes(value: int | str) -> int:
    try:
        if isinstance(value, str):
            return limits.size(value, limits.MEMORY_MINIMUM)
        if isinstance(value, int) and value >= limits.MEMORY_MINIMUM:
            return value
        raise ValueError(f"expected bytes or a size such as 512MB or 1GiB, at least {limits.MEMORY_MINIMUM // limits.MiB} MiB")
    except ValueError as exc:
        raise BadArgument(f"memory_limit={value!r}: {exc}") from None


def _size(n: int) -> str:
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n / limits.MiB:.4g} MiB"

