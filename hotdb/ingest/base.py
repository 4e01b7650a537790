"""The contract every format module keeps: `sniff(source) -> bool`, `parse(source) -> Parsed`.

Ingestors never touch the database; the loader (hotdb/store/loader.py) stores what
they return, in one transaction per ingest.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import os
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

from hotdb.errors import ParseError
from hotdb.ingest.rows import Parsed

SNIFF_BYTES = 64 * 1024
# files larger than this are not read into memory: their reader streams them (bulk.py)
STREAM_BYTES = int(os.environ.get("HOTDB_STREAM_BYTES", str(64 * 2**20)))


DUMP_FILES = ("_tvmdbg_graph_dump.json", "_tvmdbg_execution_trace.json")
MS_FILES = ("database_workload.json", "database_tuning_record.json")
# Formats whose input is a folder: the first file of each names the folder's format.
FOLDER_FILES = (DUMP_FILES, MS_FILES)


@dataclass(frozen=True)
class Source:
    """One input, read once: its bytes, hash and decoded text. A debug executor dump
    folder is one input too: its files are `members`, and `data` joins them for the hash."""

    path: Path
    data: bytes  # all of it; for a streamed file, only its first SNIFF_BYTES
    members: tuple[tuple[str, bytes], ...] = ()
    streamed_size: int | None = None  # set when the file is too large to hold: readers stream it
    # A block of a pasted text (hotdb/ingest/paste.py): its lines keep the file's numbers
    # (data is padded with the newlines before it), its hash is of its own text.
    digest: str | None = None
    part: str | None = None  # "lines 12-40"

    def member(self, name: str) -> "Source":
        for member_name, data in self.members:
            if member_name == name:
                return Source(self.path / name, data)
        raise ParseError(self.path, None, f"the folder has no {name}")

    @classmethod
    def read(cls, path: str | Path) -> "Source":
        path = Path(path)
        if path.is_dir():
            names = next((group for group in FOLDER_FILES if (path / group[0]).is_file()), ())
            members = tuple((name, _read(path / name)) for name in names if (path / name).is_file())
            if not members:
                raise ParseError(path, None, "a folder is read only as a debug dump (" + " and ".join(DUMP_FILES)
                                 + ") or a MetaSchedule database (" + " and ".join(MS_FILES) + ")")
            return cls(path, b"\0".join(name.encode() + b"\0" + data for name, data in members), members)
        try:
            size = path.stat().st_size
            if size > STREAM_BYTES:
                with path.open("rb") as handle:
                    head = handle.read(SNIFF_BYTES)
                if head[:2] != b"\x1f\x8b":
                    source = cls(path, head, streamed_size=size)
                    source._hash_in_background()
                    return source
            data = path.read_bytes()
        except OSError as exc:
            raise ParseError(path, None, f"cannot read file: {exc.strerror or exc}") from None
        if data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise ParseError(path, None, f"gzip data is damaged: {exc}") from None
        return cls(path, data)

    @classmethod
    def from_text(cls, name: str, text: str) -> "Source":
        """A source that is no file: what a live capture produced, named for what it is."""
        return cls(Path(name), text.encode())

    @property
    def name(self) -> str:
        return str(self.path)

    @property
    def label(self) -> str:
        """How the source is listed: the path, and for a block of a pasted text its lines."""
        return str(self.path) + (f" ({self.part})" if self.part else "")

    @property
    def size(self) -> int:
        return self.streamed_size if self.streamed_size is not None else len(self.data)

    @cached_property
    def sha256(self) -> str:
        if self.digest is not None:
            return self.digest
        if self.streamed_size is None:
            return hashlib.sha256(self.data).hexdigest()
        hashing = self.__dict__.get("_hashing")
        if hashing is not None:
            hashing[0].join()
            if hashing[1]:
                return hashing[1][0]
        return _file_sha256(self.path)

    def _hash_in_background(self) -> None:
        """Hash a large file while its reader parses it (hashlib releases the GIL)."""
        result: list[str] = []
        thread = threading.Thread(target=lambda: result.append(_file_sha256(self.path)), daemon=True)
        self.__dict__["_hashing"] = (thread, result)
        thread.start()

    @cached_property
    def content(self) -> bytes:
        """All bytes: a streamed file is read whole only by formats that cannot stream."""
        return self.data if self.streamed_size is None else _read(self.path)

    @cached_property
    def text(self) -> str:
        data = self.content
        for bom, encoding in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                              (codecs.BOM_UTF16_BE, "utf-16")):
            if data.startswith(bom):
                break
        else:
            encoding = "utf-8"
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise ParseError(self.path, line, f"not {encoding} text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
        if "\x00" in text:
            line = text[: text.index("\x00")].count("\n") + 1
            raise ParseError(self.path, line, "binary data (NUL byte) where text was expected")
        return text

    @cached_property
    def lines(self) -> list[str]:
        """Lines without their endings (\\n, \\r\\n and \\r all end a line)."""
        return self.text.splitlines()

    @cached_property
    def head(self) -> str:
        """The start of the text, for sniffing; empty when the file is not text."""
        if self.members:
            return ""
        chunk = self.data[:SNIFF_BYTES]
        if chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return chunk.decode("utf-16", errors="ignore")
        return chunk.decode("utf-8-sig", errors="ignore")

    def error(self, line: int | None, message: str, field: str | None = None) -> ParseError:
        return ParseError(self.path, line, message, field=field)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(8 * 2**20):
                digest.update(chunk)
    except OSError as exc:
        raise ParseError(path, None, f"cannot read file: {exc.strerror or exc}") from None
    return digest.hexdigest()


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ParseError(path, None, f"cannot read file: {exc.strerror or exc}") from None


class Ingestor(Protocol):
    """One format. Modules in hotdb/ingest/ each define one and register it in __init__.

    Text formats may also say where blocks of their format lie in a pasted text:
    `blocks(lines) -> [(first, one past last), ...]` (0-based line indexes; paste.py)."""

    name: str  #: what `--input-format` takes, e.g. "debug-table"
    role: str  #: one of rows.ROLES
    reads: str  #: one line for `hotdb formats`: what the format is
    detects: str  #: one line: how sniff recognises it

    def sniff(self, source: Source) -> bool: ...

    def parse(self, source: Source) -> Parsed: ...
