"""Files a command writes for the user (exports, reports): whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it, renamed over it once
    complete: a full disk or a killed process leaves the old file (or none), never a
    truncated one (a FIFO or a device is written to directly; a symbolic link's target is
    replaced). Errors are the OSError the machine gave, naming `path`."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory, expected a file path", str(path))
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


def write_export(path: Path, text: str, files: dict[str, str]) -> None:
    """An export at `path`: a file holding `text`, or, for a format that is a folder
    (`files`: name -> text), that folder, each file written whole in the order given (a
    database's workloads before the records that name them)."""
    if not files:
        write_whole(path, text)
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(20, "exists and is not a folder, which this format writes", str(path))
    path.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        write_whole(path / name, body)
