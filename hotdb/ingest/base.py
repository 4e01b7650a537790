"""The contract every format module keeps: `sniff(source) -> bool`, `parse(source) -> Parsed`.

Ingestors never touch the database; the loader (hotdb/store/loader.py) stores what
they return, in one transaction per ingest.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

from hotdb.errors import ParseError
from hotdb.ingest.rows import Parsed

SNIFF_BYTES = 64 * 1024


DUMP_FILES = ("_tvmdbg_graph_dump.json", "_tvmdbg_execution_trace.json")
MS_FILES = ("database_workload.json", "database_tuning_record.json")
# Formats whose input is a folder: the first file of each names the folder's format.
FOLDER_FILES = (DUMP_FILES, MS_FILES)


@dataclass(frozen=True)
class Source:
    """One input, read once: its bytes, hash and decoded text. A debug executor dump
    folder is one input too: its files are `members`, and `data` joins them for the hash."""

    path: Path
    data: bytes
    members: tuple[tuple[str, bytes], ...] = ()

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
            data = path.read_bytes()
        except OSError as exc:
            raise ParseError(path, None, f"cannot read file: {exc.strerror or exc}") from None
        if data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise ParseError(path, None, f"gzip data is damaged: {exc}") from None
        return cls(path, data)

    @property
    def name(self) -> str:
        return str(self.path)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def text(self) -> str:
        data = self.data
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


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ParseError(path, None, f"cannot read file: {exc.strerror or exc}") from None


class Ingestor(Protocol):
    """One format. Modules in hotdb/ingest/ each define one and register it in __init__."""

    name: str  #: what `--format` takes, e.g. "debug-table"
    role: str  #: "profile", "ir" or "tasks"
    reads: str  #: one line for `hotdb formats`: what the format is
    detects: str  #: one line: how sniff recognises it

    def sniff(self, source: Source) -> bool: ...

    def parse(self, source: Source) -> Parsed: ...
