"""Files a command writes for the user (exports, reports): whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it, renamed over it once
    complete: a full disk or a killed process leaves the old file (or none), never a
    truncated one. Errors are the OSError the machine gave, naming `path`."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory, expected a file path", str(path))
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
