"""An input, read once (`Source`): a file, gzip or not, held or streamed; a folder of known
files; a block of a pasted text. What every reader reads (reader.py says the contract)."""

from __future__ import annotations

import codecs
import gzip
import hashlib
import os
import stat
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from hotdb import limits
from hotdb.errors import ParseError
from hotdb.ingest.lines import encoding_of, stream_lines

SNIFF_BYTES = 64 * 1024


DUMP_FILES = ("_tvmdbg_graph_dump.json", "_tvmdbg_execution_trace.json")
MS_FILES = ("database_workload.json", "database_tuning_record.json")
# Formats whose input is a folder: the first file of each names the folder's format.
FOLDER_FILES = (DUMP_FILES, MS_FILES)


@dataclass(frozen=True)
class Source:
    """One input, read once: its bytes, hash and decoded text. A debug executor dump
    folder is one input too: its files are `members`, hashed and sized as if joined
    (`name\\0data\\0name\\0data`), not joined: two files of 64 MiB would be held twice."""

    path: Path
    data: bytes  # all of it; for a streamed file, only its first SNIFF_BYTES; for a folder, nothing
    members: tuple[tuple[str, bytes], ...] = ()
    streamed_size: int | None = None  # set when the file is too large to hold: readers stream it
    # A block of a pasted text (hotdb/ingest/paste/blocks.py): its lines keep the file's numbers
    # (data is padded with the newlines before it), its hash is of its own text.
    digest: str | None = None
    part: str | None = None  # "lines 12-40"
    # Text whose renderings were undone (hotdb/ingest/paste/unrender.py) and lines joined: the
    # file's line number of each line, for errors and warnings; None: line i is line i.
    line_origin: tuple[int, ...] | None = None
    # A block's own size in bytes (its text's), where `data` is padded or is the file's head
    part_size: int | None = None
    # A block of a file too large to be a paste (paste.split_repeated): its lines, taken in
    # turn from one pass over the file that the blocks after it go on reading
    lines_from: Callable[[], Iterator[tuple[int, str]]] | None = field(default=None, compare=False, repr=False)

    def forget_text(self) -> None:
        """Drop the decoded text and its lines once the source is parsed: read again if
        asked for. A 64 MiB text costs ~160 MiB more as lines, while its rows are stored."""
        self.__dict__.pop("text", None)
        self.__dict__.pop("lines", None)

    def member(self, name: str) -> "Source":
        for member_name, data in self.members:
            if member_name == name:
                return Source(self.path / name, data)
        raise ParseError(self.path, None, f"the folder has no {name}")

    @classmethod
    def read(cls, path: str | Path) -> "Source":
        """One input: a regular file (gzip-compressed or not) or a folder of known files.
        Devices, FIFOs and sockets are refused before they are opened (a FIFO would block,
        /dev/zero never ends); an input read into memory is bounded (limits.py)."""
        path = Path(path)
        kind = _kind(path)
        if kind == "folder":
            names = next((group for group in FOLDER_FILES if (path / group[0]).is_file()), ())
            members = tuple((name, _read(path / name)) for name in names if (path / name).is_file())
            if not members:
                raise ParseError(path, None, "a folder is read only as a debug dump (" + " and ".join(DUMP_FILES)
                                 + ") or a MetaSchedule database (" + " and ".join(MS_FILES) + ")")
            return cls(path, b"", members)
        try:
            size = path.stat().st_size
            with open_input(path) as handle:
                head = read_some(handle, SNIFF_BYTES)
            if head[:2] == b"\x1f\x8b":
                return cls(path, _gunzip(path))
            if size > limits.stream_bytes():
                if size > limits.max_stream_bytes():
                    raise ParseError(path, None, f"the file holds {size:,} bytes, more than the {limits.max_stream_bytes():,} "
                                                 "hotdb streams; set HOTDB_MAX_STREAM_BYTES to raise the limit")
                source = cls(path, head, streamed_size=size)
                source._hash_in_background()
                return source
        except OSError as exc:
            raise cannot_read(path, exc) from None
        return cls(path, _read(path))

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
        if self.members:
            return sum(len(name.encode()) + 2 + len(data) for name, data in self.members) - 1
        if self.part_size is not None:
            return self.part_size
        return self.streamed_size if self.streamed_size is not None else len(self.data)

    @cached_property
    def sha256(self) -> str:
        if self.digest is not None:
            return self.digest
        if self.members:
            digest = hashlib.sha256()
            for i, (name, data) in enumerate(self.members):
                digest.update((b"\0" if i else b"") + name.encode() + b"\0")
                digest.update(data)
            return digest.hexdigest()
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
        encoding = encoding_of(data)
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
        """Lines without their endings (\\n, \\r\\n and \\r all end a line), none longer than
        HOTDB_MAX_LINE_BYTES: one 500 MB JSON line would take gigabytes to parse."""
        lines = self.text.splitlines()
        limit = limits.max_line_bytes()
        if lines and max(map(len, lines)) > limit:  # characters: at most as many as bytes
            number = next(i for i, line in enumerate(lines, start=1) if len(line) > limit)
            raise ParseError(self.path, number, f"a line of more than {limit:,} characters; set HOTDB_MAX_LINE_BYTES "
                                                "to raise the limit")
        return lines

    def iter_lines(self) -> Iterator[tuple[int, str]]:
        """(1-based number, line) of each line, the same as `lines`: held in memory for a
        small source, read from the file as a stream for a large one (lines.py), so that
        a reader that takes its lines one by one reads files up to HOTDB_MAX_STREAM_BYTES
        in memory that does not grow with them. The one way a streaming reader reads."""
        if self.lines_from is not None:
            yield from self.lines_from()
        elif self.streamed_size is None:
            yield from enumerate(self.lines, start=1)
        else:
            yield from stream_lines(self._chunks(), encoding_of(self.data), limits.max_line_bytes(), self.error)

    def chunks(self) -> Iterator[bytes]:
        """All the bytes, in chunks: held, or read from the file (a streamed one)."""
        if self.streamed_size is None:
            yield self.content
        else:
            yield from self._chunks()

    def _chunks(self) -> Iterator[bytes]:
        """The file's bytes in chunks, up to the size it had when read: the hash, taken
        meanwhile, is of the same bytes if the file grows."""
        left = self.streamed_size
        try:
            with open_input(self.path) as handle:
                while left > 0 and (chunk := read_some(handle, min(MiB_CHUNK, left))):
                    left -= len(chunk)
                    yield chunk
        except OSError as exc:
            raise cannot_read(self.path, exc) from None

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
        return ParseError(self.path, line, message, field=field)  # the file's numbering: files._parse

    def file_line(self, line: int | None) -> int | None:
        """The file's number of the source's 1-based line `line`."""
        if line is None or self.line_origin is None or not 0 < line <= len(self.line_origin):
            return line
        return self.line_origin[line - 1]


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open_input(path) as handle:
            while chunk := read_some(handle, 8 * 2**20):
                digest.update(chunk)
    except OSError as exc:
        raise cannot_read(path, exc) from None
    return digest.hexdigest()


def _kind(path: Path) -> str:
    """'file' or 'folder'; anything else is refused here, before it is opened."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise cannot_read(path, exc) from None
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return "file"
    what = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise ParseError(path, None, f"{what}: hotdb reads regular files and folders only (copy the data to a file)")


def open_input(path: Path):
    """A file opened for reading that never waits: a regular file that blocks (/proc/kmsg,
    a kernel stream that holds its next line until there is one) raises BlockingIOError at
    its first empty read (said by `cannot_read`) instead of hanging the command. Files on
    disk never block."""
    return os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb")


def read_some(handle, size: int) -> bytes:
    """Up to `size` bytes of an `open_input` file; BlockingIOError where it would wait (a
    non-blocking read returns None when nothing is there yet)."""
    data = handle.read(size)
    if data is None:
        raise BlockingIOError(11, "no data yet")
    return data


def cannot_read(path: Path, exc: OSError) -> ParseError:
    if isinstance(exc, BlockingIOError):
        return ParseError(path, None, "reading it would wait for more (a device or a kernel stream): hotdb reads "
                                      "files whose data is there (copy it to a file)")
    return ParseError(path, None, f"cannot read file: {exc.strerror or exc}")


def _too_large(path: Path, what: str) -> ParseError:
    return ParseError(path, None, f"{what} more than {limits.max_read_bytes():,} bytes, the most hotdb reads into memory; "
                                  "set HOTDB_MAX_READ_BYTES to raise the limit (large reports in CSV or JSON, debug "
                                  "logs and tables, Relay text, Relax TVMScript, AutoTVM and auto_scheduler logs, task "
                                  "printouts and fallback warnings are streamed without it when not compressed)")


def _read(path: Path) -> bytes:
    """A whole file, within HOTDB_MAX_READ_BYTES: the size is checked before reading, and
    the reading stops at the limit (a file may grow meanwhile)."""
    limit = limits.max_read_bytes()
    try:
        _kind(path)
        if path.stat().st_size > limit:
            raise _too_large(path, "the file holds")
        with open_input(path) as handle:
            data = read_some(handle, limit + 1)
    except OSError as exc:
        raise cannot_read(path, exc) from None
    if len(data) > limit:
        raise _too_large(path, "the file holds")
    return data


def _gunzip(path: Path) -> bytes:
    """A gzip file's content, decompressed in chunks and stopped at HOTDB_MAX_READ_BYTES:
    a small file that expands to gigabytes (a gzip bomb) is refused, not held."""
    limit = limits.max_read_bytes()
    chunks, total = [], 0
    try:
        with open_input(path) as raw, gzip.open(raw, "rb") as handle:
            while chunk := handle.read(MiB_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise _too_large(path, "decompressed, the file holds")
                chunks.append(chunk)
    except BlockingIOError as exc:
        raise cannot_read(path, exc) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise ParseError(path, None, f"gzip data is damaged: {exc}") from None
    return b"".join(chunks)


MiB_CHUNK = 2**20
