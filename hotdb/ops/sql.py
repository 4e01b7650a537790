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
import tempfile
import threading
from contextlib import contextmanager

from hotdb import limits
from hotdb.duck import one_line
from hotdb.errors import BadArgument, QueryLimit, UsageError
from hotdb.result import Result
from hotdb.store.database import Database

BATCH_ROWS = 2048  # rows fetched at a time: the process holds a batch, not the result
_LOCKDOWN = ("SET enable_external_access = false", "SET autoinstall_known_extensions = false",
             "SET autoload_known_extensions = false", "SET lock_configuration = true")


def sql(database: Database, text: str, *, timeout_s: float | None = None,
        memory_limit: int | str | None = None) -> Result:
    """One query over the tables and views; anything that would write is refused. It is
    stopped after `timeout_s` seconds (default HOTDB_SQL_TIMEOUT) or when DuckDB needs more
    than `memory_limit`, bytes or a size such as "2GB" (default HOTDB_MEMORY_LIMIT). The
    whole result, in memory (`sql_batches` streams it)."""
    with sql_batches(database, text, timeout_s=timeout_s, memory_limit=memory_limit) as (columns, batches):
        return Result(columns, [row for batch in batches for row in batch])


@contextmanager
def sql_batches(database: Database, text: str, *, timeout_s: float | None = None,
                memory_limit: int | str | None = None, batch_rows: int = BATCH_ROWS):
    """As `sql`, the result as (columns, an iterator of lists of at most `batch_rows` rows),
    fetched from DuckDB as it is read: the process holds one batch, and DuckDB what
    `memory_limit` lets it (it spills the rest to a temporary folder of its own, removed
    afterwards, never beside the database). Usable while the context is open."""
    if not text or not text.strip():
        raise BadArgument("no SQL given: pass one query, e.g. hotdb sql \"SELECT * FROM runs\"")
    timeout = limits.sql_timeout_s() if timeout_s is None else _seconds(timeout_s)
    memory = limits.memory_bytes() if memory_limit is None else _bytes(memory_limit)
    with database.reader(external_access=False) as store, tempfile.TemporaryDirectory(prefix="hotdb-sql-") as spill:
        statement = _one_query(store.con, text)
        store.con.execute(f"SET memory_limit = '{int(memory)}B'")
        # a folder this process made (its name is no user's data); removed after the query
        store.con.execute(f"SET temp_directory = '{_literal(spill)}'")
        for setting in _LOCKDOWN:
            store.con.execute(setting)
        timer = threading.Timer(timeout, store.con.interrupt)
        timer.start()
        try:
            with _limits_said(timeout, memory):
                cursor = store.con.execute(statement.query)
                columns = [d[0] for d in cursor.description]
            yield columns, _fetched(cursor, batch_rows, timeout, memory)
        finally:
            timer.cancel()


def _one_query(con, text: str):
    import duckdb

    try:
        statements = con.extract_statements(text)
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {one_line(exc)}") from None
    if len(statements) != 1:
        raise UsageError(f"hotdb sql runs one query at a time; this text holds {len(statements)} statements")
    kind = statements[0].type.name
    if kind not in ("SELECT", "EXPLAIN"):
        article = "an" if kind[0] in "AEIOU" else "a"
        raise UsageError(f"hotdb sql only reads: {article} {kind} statement is refused (queries: SELECT, FROM, "
                         "WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)")
    return statements[0]


def _fetched(cursor, batch_rows: int, timeout: float, memory: int):
    while True:
        with _limits_said(timeout, memory):
            rows = cursor.fetchmany(batch_rows)
        if not rows:
            return
        yield rows


@contextmanager
def _limits_said(timeout: float, memory: int):
    """DuckDB's stops as one-line errors naming the limit (a query may stop while it is read)."""
    import duckdb

    try:
        yield
    except duckdb.InterruptException:
        raise QueryLimit(f"the query ran past {timeout:g} s and was stopped (HOTDB_SQL_TIMEOUT sets the "
                         "limit)", limit="timeout_s") from None
    except duckdb.OutOfMemoryException:
        raise QueryLimit(f"the query needed more than the {_size(memory)} of memory it may take and was stopped "
                         "(HOTDB_MEMORY_LIMIT sets the limit)", limit="memory_limit") from None
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {one_line(exc)}") from None


def _literal(text: str) -> str:
    return text.replace("'", "''")


def _seconds(value: float) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or not (
            limits.SQL_TIMEOUT_MINIMUM <= value <= limits.SQL_TIMEOUT_MAXIMUM):
        raise BadArgument(f"timeout_s={value!r}: expected a number of seconds of at least "
                          f"{limits.SQL_TIMEOUT_MINIMUM:g} and at most {limits.SQL_TIMEOUT_MAXIMUM:g}")
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

