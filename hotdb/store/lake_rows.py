"""A local lake's committed rows at its latest versions, kept as a database file in the
user's cache, so that reading an unchanged lake costs what reading a database file does.

A reader of the lake itself lays a view over each table's Parquet files: binding them
took 40 ms where opening a file took 16, and the query 23 ms where a file's took 10
(`top --all-models` over 56 ingests, bench/lake_top.py: 1.29x a file's time as whole
processes). The rows a set of versions holds never change (lake_snapshot.py), so the
first reader of a set copies them into a copy of the empty database (one INSERT a table,
from the same views) and keeps it under a name made of every table's latest commit-file
stamp, the commit log's included, and of what reads them (the empty database's name, the
lake's queries); a later reader that lists the same stamps opens that file read-only.

* It is written aside, then renamed: two readers each leave a whole file, and a killed one
  a draft that the next keep removes once an hour old. A file that cannot be opened costs
  the read its views, never a row.
* A writer that commits while the copy is made moves a stamp: the copy is then dropped
  (the rows read may be of the newer version, the name of the older).
* Only the newest file of a lake is kept (the lake moved past the others), of the
  KEPT_COPIES lakes read last, and no copy is made of a lake over HOTDB_LAKE_KEEP
  (default 256 MB of Parquet files): a copy doubles what its lake takes on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from hotdb import limits
from hotdb.errors import DatabaseError
from hotdb.store.connection import Store
from hotdb.store.lake_snapshot import NO_TABLE, stamp

_PREFIX = "lake-rows-"
_DRAFT_AGE_S = 3600  # a draft this old is a killed reader's


def _root_digest(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()[:16]


def stamps(root: Path) -> list | None:
    """[name, stamp] of each table folder of the lake (the commit log's too), as its log
    folder lists it now; None when a folder does not say its version (delta-rs must
    decide). The folders, not the schema's tables: naming those opens a database (~50 ms
    of a 0.25 s read), and a table without a folder holds no row."""
    with os.scandir(root) as entries:
        listed = sorted([entry.name, stamp(Path(entry.path))] for entry in entries if entry.is_dir())
    return None if any(s is None for _, s in listed) else listed


def unmoved(listed: list, seen: dict) -> bool:
    """Whether the stamps a read used (`seen`, lake_snapshot.Snapshot's) are those listed
    before it: else a writer landed meanwhile."""
    before = dict(listed)
    return all(before.get(name, NO_TABLE) == used for name, used in seen.items())


def path(root: Path, made_of: list, listed: list) -> Path:
    """The kept file of these stamps, read by what `made_of` names."""
    digest = hashlib.sha256(json.dumps([str(root), made_of, listed], default=str).encode()).hexdigest()[:24]
    return limits.cache_dir() / f"{_PREFIX}{_root_digest(root)}-{digest}.duckdb"


def open_kept(kept: Path) -> Store | None:
    """The kept file read-only, or None when there is none or it cannot be read."""
    if not kept.is_file():
        return None
    try:
        return Store(kept, create=False, read_only=True)
    except (duckdb.Error, DatabaseError, OSError):
        return None


def small_enough(root: Path) -> bool:
    """Whether the lake's Parquet files (every version's, until compaction vacuums them)
    come to HOTDB_LAKE_KEEP or less."""
    limit, total = limits.lake_keep_bytes(), 0
    for table in os.scandir(root):
        if not table.is_dir():
            continue
        with os.scandir(table.path) as files:
            total += sum(f.stat().st_size for f in files if f.name.endswith(".parquet") and f.is_file())
        if total > limit:
            return False
    return True


def keep(kept: Path, template: Path, fill: Callable[[duckdb.DuckDBPyConnection], bool]) -> Store | None:
    """A copy of the empty database `template` filled by `fill(con)`, kept as `kept` and
    opened read-only; None (nothing kept) when `fill` says the lake moved, or on any
    failure: the caller then reads the lake itself."""
    draft = kept.with_name(f".{kept.name}.{secrets.token_hex(6)}")
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        draft.write_bytes(template.read_bytes())
        store = Store(draft, create=False, check=False)
        try:
            whole = fill(store.con)
            store.con.execute("CHECKPOINT")  # on a full disk this fails here, not silently at close
        finally:
            store.close()
        if not whole or Path(f"{draft}.wal").exists():
            return None
        os.replace(draft, kept)
    except (OSError, duckdb.Error, DatabaseError):
        return None
    finally:
        draft.unlink(missing_ok=True)
        Path(f"{draft}.wal").unlink(missing_ok=True)
    _prune(kept)
    return open_kept(kept)


# lakes whose rows are kept: each copy is as large as its lake, and a CI job's lake in a
# temporary folder has a new path each time
KEPT_COPIES = 8


def _prune(kept: Path) -> None:
    """The lake's other kept files removed (the lake moved past them; a reader that has
    one open keeps reading it), then all but the KEPT_COPIES written last, and drafts of
    killed readers once an hour old."""
    mine = f"{_PREFIX}{kept.name.removeprefix(_PREFIX).split('-')[0]}-"
    copies = []
    for other in kept.parent.glob(f"*{_PREFIX}*"):
        try:
            if other.name.startswith("."):
                if time.time() - other.stat().st_mtime > _DRAFT_AGE_S:
                    other.unlink(missing_ok=True)
            elif other.name.endswith(".duckdb") and other != kept:
                if other.name.startswith(mine):
                    other.unlink(missing_ok=True)
                else:
                    copies.append((other.stat().st_mtime, other))
        except OSError:
            continue
    for _, other in sorted(copies, reverse=True)[KEPT_COPIES - 1:]:
        other.unlink(missing_ok=True)
