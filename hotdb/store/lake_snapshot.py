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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from pathlib import Path
from urllib.parse import unquote

from hotdb import limits

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
