"""The lake's files that are not data: names as path components, who owns a piece of
work in progress (claims, staging folders), and the folders a compaction replaced.

A process dies at any instant; what it leaves must tell the next one what it was:

* a staging folder is `_staging/<owner>.<random>`: the next writer (or `lake compact`)
  removes those whose owner is dead;
* a claim (`_claims/model=<model>/<content sha>`) appears whole or not at all (written
  aside, then hard-linked into place) and names its owner and target: when the target
  is not there and the owner is dead, the claim is stale at once;
* a folder a compaction replaced is listed in the compacted folder's `_replaces.json`
  (which lands with it, atomically) and then by a tombstone of its own
  (`model=<model>/_replaced/<folder>`) that stays: it never comes back, whatever is
  deleted later.

An owner is `<host>.<pid>.<process start time>`: on the same host, whether it lives is
known at once (a reused pid has another start time); a writer on another host (a lake
on shared storage) is taken for dead only after STALE_S.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import time
import uuid
from pathlib import Path
from urllib.parse import quote

STALE_S = 600.0  # how long work of a writer on another host is waited for
_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:60] or "host"
_MAX_COMPONENT = 200  # bytes; file systems allow 255


def component(name: str) -> str:
    """A name as one path component, reversible only through the data (the lake stores
    every name in its tables): percent-escaped, and at most 200 bytes (a longer name keeps
    its start and a hash of the whole)."""
    escaped = quote(name, safe="-_.~+@")
    if escaped in ("", ".", ".."):
        escaped = "".join(f"%{ord(c):02X}" for c in name) or "%00"
    if len(escaped) > _MAX_COMPONENT:
        escaped = escaped[:160].rstrip("%0123456789ABCDEF") + "~" + hashlib.sha256(name.encode()).hexdigest()[:32]
    return escaped


def _start_time(pid: int) -> str | None:
    """The start time of a process (clock ticks since boot), None when it does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()[19]  # field 22 of proc(5), counted after the name


def _this_owner() -> str:
    return f"{_HOST}.{os.getpid()}.{_start_time(os.getpid()) or 0}"


def owner_alive(owner: str) -> bool | None:
    """True or False for an owner on this host; None for one on another (unknowable)."""
    parts = owner.split(".")
    if len(parts) < 3:
        return False  # not written by this code: nobody will finish it
    host, pid, started = ".".join(parts[:-2]), parts[-2], parts[-1]
    if host != _HOST:
        return None
    if not pid.isdigit():
        return False
    if not Path("/proc").is_dir():  # no procfs: ask the kernel whether the pid exists
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return _start_time(int(pid)) == started


def _gone(owner: str, path: Path) -> bool:
    alive = owner_alive(owner)
    if alive is None:
        try:
            return time.time() - path.stat().st_mtime > STALE_S
        except OSError:
            return True
    return not alive


# -- staging ---------------------------------------------------------------------------
def staging_folder(root: Path) -> Path:
    folder = root / "_staging" / f"{_this_owner()}.{uuid.uuid4().hex}"
    folder.mkdir(parents=True)
    return folder


def clean_staging(root: Path) -> int:
    """Remove the staging folders (and claim drafts) of writers that died; the count."""
    removed = 0
    for entry in list((root / "_staging").glob("*")) + list((root / "_claims").glob("*/.draft-*")):
        owner = entry.name.removeprefix(".draft-").rsplit(".", 1)[0]
        if _gone(owner, entry):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed += 1
    return removed


# -- claims ----------------------------------------------------------------------------
def claim(root: Path, model: str, sha: str, target: Path) -> Path | None:
    """Claim one file's content for `target`; None when a live writer holds the claim or
    the content has landed. The claim appears whole (hard link of a finished draft)."""
    folder = root / "_claims" / f"model={component(model)}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / sha
    draft = folder / f".draft-{_this_owner()}.{uuid.uuid4().hex}"
    draft.write_text(json.dumps({"target": str(target), "owner": _this_owner()}))
    try:
        for _ in range(2):
            try:
                os.link(draft, path)
                return path
            except FileExistsError:
                if not _stale(path):
                    return None
                path.unlink(missing_ok=True)  # its writer died between claiming and landing
        return None
    finally:
        draft.unlink(missing_ok=True)


def _stale(path: Path) -> bool:
    try:
        held = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        held = {}
    target = held.get("target")
    if target and Path(target).exists():
        return False  # landed: the claim stands for stored content
    return _gone(str(held.get("owner", "")), path)


def claim_pending(path: Path) -> bool:
    """Whether a claim belongs to a writer that may still land it."""
    return path.exists() and not _stale(path)


# -- compaction ------------------------------------------------------------------------
REPLACES = "_replaces.json"


def replaced(model_dir: Path, folders: list[Path]) -> set[str]:
    """Names of the folders (`run=...`) of a model that a compaction replaced."""
    names = {p.name for p in (model_dir / "_replaced").glob("*")}
    for folder in folders:
        marker = folder / REPLACES
        try:
            names.update(json.loads(marker.read_text()))
        except FileNotFoundError:
            continue
        except ValueError:
            continue  # a marker is written before its folder lands: a damaged one is not ours
    return names


def bury(model_dir: Path, names: list[str]) -> None:
    """Tombstones for replaced folders: they stay, so that a replaced folder a kill left
    behind stays hidden after the folder that replaced it is itself replaced."""
    graves = model_dir / "_replaced"
    graves.mkdir(exist_ok=True)
    for name in names:
        (graves / name).touch()
