"""The limits hotdb keeps, each raised (or lowered) by an environment variable.

Read when used, not at import, so that a bad value is a one-line error of the command
that needs it (exit 1), naming the variable and what it takes.

    HOTDB_LOCK_TIMEOUT     seconds to wait for another writer (database lock, lake commits); 30
    HOTDB_LAKE_RETENTION   seconds a lake keeps the versions readers may still use, recorded in the lake by the next compaction (every process reads the lake's); 3600
    HOTDB_LAKE_AUTO_COMPACT a lake writer compacts once the commit log has this many files (0: never); 16
    HOTDB_LAKE_KEEP        a local lake whose Parquet files come to more is not copied into the cache for fast reads (`docs/lake.md`; 0: never); 256MB
    HOTDB_SQL_TIMEOUT      seconds one `hotdb sql` query may run before it is stopped; 300
    HOTDB_STREAM_BYTES     files larger than this are streamed, not read into memory: CSV reports by DuckDB, JSON reports call by call; debug logs and tables, Relay text, Relax TVMScript, AutoTVM and auto_scheduler logs, task printouts and fallback warnings line by line; 64MiB
    HOTDB_MAX_READ_BYTES   the most an input may hold once read into memory, decompressed; 64MiB
    HOTDB_MAX_STREAM_BYTES the largest file streamed; 16GiB
    HOTDB_MAX_LINE_BYTES   the longest line a text input may have; 16MiB
    HOTDB_MAX_FILES        the most files one ingest reads (a folder counts the files in it); 2000
    HOTDB_TUNE_STALL       seconds a tune may go without a batch coming back before it is stopped (0: the trial limits decide); 0
    HOTDB_CACHE_DIR        where hotdb keeps what it makes once and reuses (the empty database new files start from, cost models); $XDG_CACHE_HOME/hotdb
    HOTDB_MEMORY_LIMIT     DuckDB's buffer pool, beyond which it spills to disk (e.g. 500MB, at least 64MiB); 384MiB (a debug dump's JSON files, which DuckDB holds whole: unbounded when unset)

What an input may take (in MiB, as bench/README.md measures: 1 GiB is 1,024 MiB): an input
read into memory (up to HOTDB_MAX_READ_BYTES) stays under 1 GiB, whatever reads it
(bench/README.md, "Every reader at its read limit": 989 MiB at most, a MetaSchedule
database of two 64 MiB files, each record a workload of its own);
a streamed debug log or table, Relay text, Relax module, Report JSON or tuning log of a
model under 500 MiB whatever its size ("Memory bounds" and "Streamed text", each ingest a
fresh process: the log 168 MiB at 1 GiB; the Relay text 322 MiB at 64 MiB, 325 MiB at
256 MiB, 360 MiB at 1 GiB; the table, a node of its own name a row, 417 MiB at 256 MiB,
444 MiB at 1 GiB; the Relax module 316 MiB at 64 MiB, 322 MiB at 256 MiB, a GiB not
measured: ~9 million statements take over an hour; the Report JSON, decoded a call at a
time, 218 MiB at 256 MiB, 261 MiB at 1 GiB; an AutoTVM log 309 MiB at 256 MiB, 356 MiB at
1 GiB, an auto_scheduler log 350 and 360 MiB), though a debug log of ever new node names
grows with them (645 MiB at 80 MiB), a tuning log or task printout with its distinct tasks
(at 80 MiB, every line a task of its own: 433 to 969 MiB, the most an AutoTVM printout of
230,622 tasks), and so does a streamed report whose every call is a kernel of its own
(one Arrow row each: at 80 MiB 927 MiB as CSV, read by DuckDB, and 610 MiB as JSON).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from hotdb.errors import UsageError

MiB = 2**20
SIZE_MAXIMUM = 2**50  # 1 PiB: DuckDB refuses a larger memory limit in a traceback of its own
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|KIB|MB|MIB|GB|GIB|TB|TIB)?\s*$", re.I)
_UNITS = {"B": 1, "KB": 1e3, "KIB": 2**10, "MB": 1e6, "MIB": 2**20, "GB": 1e9, "GIB": 2**30, "TB": 1e12, "TIB": 2**40}


def _number(name: str, default: float, minimum: float, what: str, maximum: float = math.inf) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum:
        raise UsageError(f"{name}={raw!r}: expected {what} of at least {minimum:g}")
    if value > maximum:
        raise UsageError(f"{name}={raw!r}: expected {what} of at most {maximum:.0f}")
    return value


def size(raw: str, minimum: int) -> int:
    """Bytes of a size written 512MB, 1GiB or 1048576; ValueError saying what it takes
    when it is none, or below `minimum` (for an option as for a variable)."""
    match = _SIZE.match(raw)
    value = float(match.group(1)) * _UNITS[(match.group(2) or "B").upper()] if match else None
    if value is None or value < minimum or value > SIZE_MAXIMUM:
        least = f"{minimum // MiB} MiB" if minimum >= MiB else f"{minimum} bytes"
        raise ValueError(f"expected a size such as 512MB or 1GiB, at least {least} and at most 1 PiB")
    return int(value)


def _bytes(name: str, default: int, minimum: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return size(raw, minimum)
    except ValueError as exc:
        raise UsageError(f"{name}={raw!r}: {exc}") from None


def lock_timeout_s() -> float:
    return _number("HOTDB_LOCK_TIMEOUT", 30.0, 0.0, "a number of seconds")


def tune_stall_s() -> float:
    # 0: a batch may take as long as its trials' build and run limits allow (hotdb/capture/tune/driver.py)
    return _number("HOTDB_TUNE_STALL", 0.0, 0.0, "a number of seconds")


def cache_dir() -> Path:
    return Path(os.environ.get("HOTDB_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hotdb")


LAKE_RETENTION_MAXIMUM = 10 * 365 * 86400.0  # ten years: delta-rs counts it in whole hours, as an integer


def lake_retention_setting() -> float | None:
    """HOTDB_LAKE_RETENTION when set: the retention the next compaction records in the lake
    (every process then reads the lake's; hotdb/store/lake_compact.py). None when unset."""
    if (os.environ.get("HOTDB_LAKE_RETENTION") or "").strip() == "":
        return None
    return _number("HOTDB_LAKE_RETENTION", 3600.0, 0.0, "a number of seconds", LAKE_RETENTION_MAXIMUM)


def lake_auto_compact_files() -> int:
    # a reader reads every file of a table: in one process `top --all-models` took 0.28 s
    # over 537 files, 0.12 s over 74 (bench/lake_top.py); a compaction of that lake, 1.4 s
    return int(_number("HOTDB_LAKE_AUTO_COMPACT", 16, 0, "a number of files"))


def lake_keep_bytes() -> int:
    # a local lake's rows are kept as a database file in the cache for a fast read
    # (hotdb/store/lake_snapshot.py): a copy as large as the lake, so not of a large one
    return _bytes("HOTDB_LAKE_KEEP", 256 << 20, 0)


SQL_TIMEOUT_MINIMUM = 0.1
SQL_TIMEOUT_MAXIMUM = 30 * 86400.0  # a month: a timer cannot wait much longer (threading.TIMEOUT_MAX)


def sql_timeout_s() -> float:
    """How long `hotdb sql` lets one query run: a query over what hotdb stores ends in
    seconds; one that runs for minutes is a cross join or a runaway string_agg."""
    return _number("HOTDB_SQL_TIMEOUT", 300.0, SQL_TIMEOUT_MINIMUM, "a number of seconds", SQL_TIMEOUT_MAXIMUM)


def stream_bytes() -> int:
    # 0 streams every file a streaming format reads (tests do, to compare with a whole read)
    return _bytes("HOTDB_STREAM_BYTES", 64 * MiB, 0)


def max_stream_bytes() -> int:
    # a report of a million calls is ~0.2 GB; a file of more than 16 GiB is a mistake (or
    # a sparse file of holes) that DuckDB would scan, or a reader read line by line, for minutes
    return _bytes("HOTDB_MAX_STREAM_BYTES", 16 * 2**30, MiB)


def max_read_bytes() -> int:
    # Parsed line by line, text grows as Python objects; rows are kept as Arrow (NodeList):
    # 64 MiB of a debug table of distinct kernels peaked at 0.86 GiB (bench/README.md),
    # within the 1 GiB an input may take. Larger profile reports are streamed by
    # DuckDB instead (HOTDB_STREAM_BYTES).
    return _bytes("HOTDB_MAX_READ_BYTES", 64 * MiB, MiB)


def max_line_bytes() -> int:
    # a JSON record of 16 MiB parses to ~20x that in Python objects
    return _bytes("HOTDB_MAX_LINE_BYTES", 16 * MiB, 1024)


def max_files() -> int:
    # every input is parsed before any is stored, and each costs its read, detection and
    # parse: 20,000 tiny logs ran for minutes and grew past 1.5 GB. A build's profiles, IR
    # and tuning logs are tens of files; a MetaSchedule or debug dump folder counts as one.
    return int(_number("HOTDB_MAX_FILES", 2000, 1, "a number of files"))


# An input may take at most 1 GiB, measured (bench/memory_bounds.py): Python's share, the
# parsed rows as Arrow, and DuckDB's buffer pool together. DuckDB's share: the largest
# text (64 MiB of distinct kernels) peaked at 0.86 GiB with it, 0.96 GiB at 512 MiB,
# 1.7 GiB unbounded.
DUCKDB_MEMORY = 384 * MiB
MEMORY_MINIMUM = 64 * MiB  # below it DuckDB cannot run hotdb's queries at all


def memory_limit(default: bool = True) -> str | None:
    """DuckDB's memory_limit setting, checked: below 64 MiB DuckDB cannot run hotdb's
    queries at all, and says so only in a traceback. Unset: DUCKDB_MEMORY, or with
    `default` False, DuckDB's own (for a reader that must hold one JSON object whole:
    DuckDB cannot spill it)."""
    limit = memory_bytes(default)
    return None if limit is None else f"{limit}B"


def memory_bytes(default: bool = True) -> int | None:
    """memory_limit in bytes."""
    raw = os.environ.get("HOTDB_MEMORY_LIMIT")
    if raw is None or raw.strip() == "":
        return DUCKDB_MEMORY if default else None
    return _bytes("HOTDB_MEMORY_LIMIT", 0, MEMORY_MINIMUM)
