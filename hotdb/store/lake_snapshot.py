"""What a local lake's tables hold at their latest versions, remembered by version, so that
a read of an unchanged lake opens no table with delta-rs.

A Delta table's version is immutable: the files it holds never change. Its latest version
is its highest `_delta_log/<version>.json` (a commit lands by creating that file whole), so
listing the folder tells whether a table moved since the last read. Opening a table with
delta-rs replays its log (6-16 ms a table here; with the commit log's rows read, ~0.13 s of
a 0.4 s `top --all-models` on a lake of 56 ingests: bench/lake_top.py). What each version
seen holds (a table's file list; the commit log's (commit, model) pairs) is kept in the
user's cache, one JSON file a lake, written whole then renamed: two readers each leave a
whole file, and a lost or damaged one costs the opens it saved. A version is known by its
commit file's size, modification time and inode too, so that a lake deleted and made again
at the same path, whose version 0 holds other files, is not taken for the old one.

Only a local lake's latest versions are remembered: an object store has no cheap listing,
and `--as-of` names a version by time, which only delta-rs resolves.

## The rows, kept as a database file

A local lake's committed rows at its latest versions are also kept as a database file in
the user's cache, so that reading an unchanged lake costs what reading a database file does.

A reader of the lake itself lays a view over each table's Parquet files: binding them
took 40 ms where opening a file took 16, and the query 23 ms where a file's took 10
(`top --all-models` over 56 ingests, bench/lake_top.py: 1.29x a file's time as whole
processes). The rows a set of versions holds never change (above), so the
first reader of a set copies them into a copy of the empty database (one INSERT a table,
from the same views) and keeps it under a name made of every table's latest commit-file
stamp, the commit log's included, and of what reads them (the empty database's name, lake.py's
digest); a later reader that lists the same stamps opens that file read-only.

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
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import duckdb

from hotdb import limits
from hotdb.errors import DatabaseError
from hotdb.store.connection import Store

_COMMIT_FILE = re.compile(r"(\d{20})\.json")
_FORMAT = 1  # of the cache file: another is read as empty


NO_TABLE = "no table"


def stamp(table_dir: Path) -> list[int] | str | None:
    """[version, size, mtime_ns, inode] of the table's latest commit file; NO_TABLE when
    it has no log (a lake holds a table once a row was written to it); None when delta-rs
    must decide."""
    try:
        with os.scandir(table_dir / "_delta_log") as entries:
            versions = [int(m.group(1)) for e in entries if (m := _COMMIT_FILE.fullmatch(e.name))]
    except (FileNotFoundError, NotADirectoryError):
        return NO_TABLE
    if not versions:
        return None  # only checkpoints left: delta-rs decides
    latest = max(versions)
    try:
        info = os.stat(table_dir / "_delta_log" / f"{latest:020d}.json")
    except FileNotFoundError:
        return None  # removed while listed: delta-rs decides
    return [latest, info.st_size, info.st_mtime_ns, info.st_ino]


def local_files(table) -> list[str]:
    """A delta-rs table's files at its version, as local paths (its URIs are percent-encoded)."""
    return [unquote(uri.removeprefix("file://")) for uri in table.file_uris()]


class Snapshot:
    """The lake's tables' latest versions, as listed now, and what they hold: from the
    cache where the version was seen before, else from delta-rs (then remembered). `save`
    writes what was learnt."""

    def __init__(self, root: Path):
        self.root = root
        self._path = limits.cache_dir() / f"lake-{hashlib.sha256(str(root).encode()).hexdigest()[:32]}.json"
        self._known = self._read()
        self._learnt = False
        self.seen: dict[str, list | str | None] = {}  # table -> the stamp its read listed

    def _read(self) -> dict:
        try:
            known = json.loads(self._path.read_text())
        except (OSError, ValueError):
            return {}
        return known.get("tables", {}) if isinstance(known, dict) and known.get("format") == _FORMAT \
            and known.get("root") == str(self.root) else {}

    def held(self, name: str, read, missing=None):
        """What table `name` holds at its latest version: read(version) (a delta-rs read of
        that version, JSON-able) unless remembered; `missing` when there is no table, and
        read(None) when its folder does not say its version."""
        stamp_now = stamp(self.root / name)
        self.seen[name] = stamp_now
        if stamp_now == NO_TABLE:
            return missing
        if stamp_now is None:
            return read(None)
        entry = self._known.get(name)
        if isinstance(entry, dict) and entry.get("stamp") == stamp_now:
            return entry["held"]
        held = read(stamp_now[0])
        self._known[name] = {"stamp": stamp_now, "held": held}
        self._learnt = True
        return held

    def save(self) -> None:
        """What was learnt, for the next read: written aside, then renamed over the last;
        the files of the lakes read longest ago removed past KEPT_LAKES."""
        if not self._learnt:
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            part = self._path.with_name(f"{self._path.name}.{os.getpid()}.{threading.get_ident()}.part")
            part.write_text(json.dumps({"format": _FORMAT, "root": str(self.root), "tables": self._known}))
            os.replace(part, self._path)
            _prune(self._path.parent)
        except OSError:
            pass  # a cache that cannot be written costs the next read its opens, not this one


# lakes whose versions are remembered: a CI job's lake in a temporary folder is read under
# a new path each time, and each would otherwise leave a file in the cache for good
KEPT_LAKES = 64


def _prune(folder: Path) -> None:
    """All but the KEPT_LAKES most recently written lake files removed (and parts a killed
    reader left, once an hour old)."""
    by_age = []
    for path in folder.glob("lake-*.json*"):
        try:
            mtime = path.stat().st_mtime
        except FileNotFoundError:
            continue
        if path.name.endswith(".part"):
            if time.time() - mtime > 3600:
                path.unlink(missing_ok=True)
        else:
            by_age.append((mtime, path))
    for _, path in sorted(by_age, reverse=True)[KEPT_LAKES:]:
        path.unlink(missing_ok=True)


# -- the rows of a set of versions, kept as a database file ------------------------------

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


def copy_path(root: Path, made_of: list, listed: list) -> Path:
    """The kept file of these stamps, read by what `made_of` names."""
    digest = hashlib.sha256(json.dumps([str(root), made_of, listed], default=str).encode()).hexdigest()[:24]
    return limits.cache_dir() / f"{_PREFIX}{_root_digest(root)}-{digest}.duckdb"


def open_copy(kept: Path) -> Store | None:
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


def keep_copy(kept: Path, fill: Callable[[duckdb.DuckDBPyConnection], bool]) -> Store | None:
    """A copy of the empty database (connection.empty_database) filled by `fill(con)`,
    kept as `kept` and opened read-only; None (nothing kept) when `fill` says the lake moved, or on any
    failure: the caller then reads the lake itself."""
    draft = kept.with_name(f".{kept.name}.{secrets.token_hex(6)}")
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        store = Store(draft, check=False)  # a new file starts as a copy of the empty database
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
    _prune_copies(kept)
    return open_copy(kept)


# lakes whose rows are kept: each copy is as large as its lake, and a CI job's lake in a
# temporary folder has a new path each time
KEPT_COPIES = 8


def _prune_copies(kept: Path) -> None:
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
