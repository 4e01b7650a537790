"""Files a command writes for the user (exports, reports): whole or not at all, and never
over an input. The database the command reads and any path of a lake are refused; an
existing file is replaced only when hotdb wrote it (a report, by how it begins; an
export, by its content being the one hotdb last wrote there, remembered in
HOTDB_CACHE_DIR/outputs.json), when what is written keeps it whole at its start (records
appended to a user's MetaSchedule database), or with --force."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from hotdb import limits
from hotdb.errors import UsageError


def write_whole(path: Path, text: str, *, protected: tuple = (), force: bool = False) -> None:
    """Write `text` to `path` through a temporary file beside it, renamed over it once
    complete: a full disk or a killed process leaves the old file (or none), never a
    truncated one (a FIFO or a device is written to directly; a symbolic link's target is
    replaced). Errors are the OSError the machine gave, naming `path`; a path that is an
    input (`protected`: the database, a lake) or a file hotdb did not write (without
    `force`) is a UsageError."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory, expected a file path", str(path))
    _check_target(path, protected, force, text)
    if path.exists() and not path.is_file():
        # a FIFO or a device (/dev/stdout, a pipe to another program) is written to, as a
        # shell's > does: replacing it would leave a regular file where it was
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return
    path = path.resolve() if path.is_symlink() else path  # the file it points to is replaced, not the link
    temporary = path.with_name(f".{path.name[:200]}.{os.getpid()}.partial")
    try:
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        if exc.filename in (None, str(temporary)):  # a write() error names no file
            raise type(exc)(exc.errno, exc.strerror, str(path)) from exc
        raise
    _remember(path, text)


def write_export(path: Path, text: str, files: dict[str, str], *, protected: tuple = (), force: bool = False) -> None:
    """An export at `path`: a file holding `text`, or, for a format that is a folder
    (`files`: name -> text), that folder, each file written whole in the order given (a
    database's workloads before the records that name them)."""
    if not files:
        write_whole(path, text, protected=protected, force=force)
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(20, "exists and is not a folder, which this format writes", str(path))
    for name, body in files.items():
        _check_target(path / name, protected, force, body)
    path.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        write_whole(path / name, body, protected=protected, force=force)


def _check_target(path: Path, protected: tuple, force: bool, text: str) -> None:
    real = path.resolve()
    for given in protected:
        if given is not None and "://" not in str(given) and Path(given).exists() and _same(real, Path(given)):
            what = "lake" if Path(given).is_dir() else "database"
            raise UsageError(f"{path}: is the {what} this command reads (or inside it): give another path")
    for folder in [real, *real.parents]:
        if (folder / "_commits" / "_delta_log").is_dir() or (folder / "_delta_log").is_dir():
            raise UsageError(f"{path}: is inside a lake ({folder}): give a path outside it")
    if real.is_file() and not force and not _wrote(real) and not _extends(real, text):
        raise UsageError(f"{path}: exists and hotdb did not write it (or it changed since): give another path, "
                         "or --force to replace it")


def _extends(path: Path, text: str) -> bool:
    """`text` holds the file's whole content at its start: nothing of it is lost."""
    try:
        return text.encode("utf-8").startswith(path.read_bytes())
    except OSError:
        return False


def _same(real: Path, given: Path) -> bool:
    given = given.resolve()
    if given.is_dir():
        return real == given or given in real.parents
    return real.exists() and os.path.samefile(real, given)


def _registry() -> Path:
    return limits.cache_dir() / "outputs.json"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# how a report hotdb wrote begins (cli/report.py), whichever cache the run that wrote it had
_REPORT_MARKS = (b'<meta name="generator" content="hotdb">', b"## hotdb report: ")


def _wrote(path: Path) -> bool:
    try:
        with open(path, "rb") as existing:
            head = existing.read(512)
        if head.startswith(_REPORT_MARKS[1]) or _REPORT_MARKS[0] in head:
            return True
        known = json.loads(_registry().read_text())
        return known.get(str(path)) == _digest(path.read_bytes())
    except (OSError, ValueError, AttributeError):
        return False


def _remember(path: Path, text: str) -> None:
    """What hotdb wrote at `path`, so that the next run may replace it (best effort: where
    the cache cannot be written, the next run needs --force)."""
    registry = _registry()
    with contextlib.suppress(OSError, ValueError):
        try:
            known = json.loads(registry.read_text())
        except FileNotFoundError:
            known = {}
        known = {p: d for p, d in known.items() if Path(p).exists()} if len(known) > 1000 else known
        known[str(path.resolve())] = _digest(text.encode("utf-8"))
        registry.parent.mkdir(parents=True, exist_ok=True)
        draft = registry.with_name(f".outputs.{os.getpid()}.json")
        draft.write_text(json.dumps(known))
        os.replace(draft, registry)
