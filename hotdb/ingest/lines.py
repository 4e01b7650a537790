"""A text file's lines as a stream: what `Source.iter_lines` yields for a file too large
to hold (HOTDB_STREAM_BYTES), in memory that does not grow with the file.

The lines are exactly those of `str.splitlines()` on the whole decoded text, numbered
the same: a chunk is cut after its last line break, and a `\\r` that ends a chunk waits
for the next (it may be the first half of a `\\r\\n`). The checks of a text read whole
hold too: bytes that are not text, a NUL byte, a line longer than HOTDB_MAX_LINE_BYTES
(found before the line is held whole).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator

# every character str.splitlines() breaks at
BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def encoding_of(data: bytes) -> str:
    """The encoding a text's first bytes say (a byte order mark), else UTF-8."""
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return encoding
    return "utf-8"


def stream_lines(chunks: Iterable[bytes], encoding: str, max_line: int,
                 error: Callable[[int, str], Exception]) -> Iterator[tuple[int, str]]:
    """(1-based number, line without its ending) of the text the byte chunks hold;
    `error(line, message)` is raised where the text is not text or a line is too long."""
    decoder = codecs.getincrementaldecoder(encoding)()
    carry, number, offset = "", 0, 0
    for chunk, final in with_last(chunks):
        try:
            text = carry + decoder.decode(chunk, final)
        except UnicodeDecodeError as exc:
            start = max(exc.start, 0)
            good = carry + chunk[:start].decode(encoding, errors="replace")
            raise error(number + _line_of(good), f"not {encoding} text (byte 0x{chunk[start]:02x} at offset "
                                                 f"{offset + start})") from None
        offset += len(chunk)
        if "\x00" in text:
            raise error(number + _line_of(text[: text.index("\x00")]), "binary data (NUL byte) where text was expected")
        if final:
            complete, carry = text, ""
        else:
            scan = text[:-1] if text.endswith("\r") else text
            end = max(scan.rfind(ch) for ch in BREAKS) + 1  # 0: no break, all of it waits
            complete, carry = text[:end], text[end:]
        lines = complete.splitlines()
        if lines and max(map(len, lines)) > max_line:
            number += next(i for i, line in enumerate(lines, start=1) if len(line) > max_line)
            raise error(number, _too_long(max_line))
        if len(carry) > max_line:  # a line not ended yet, already too long to hold
            raise error(number + len(lines) + 1, _too_long(max_line))
        for line in lines:
            number += 1
            yield number, line


def with_last(items: Iterable) -> Iterator[tuple[object, bool]]:
    """Each item and whether it is the last: a stream's end is known one item late."""
    previous, started = None, False
    for item in items:
        if started:
            yield previous, False
        previous, started = item, True
    if started:
        yield previous, True


def _line_of(prefix: str) -> int:
    """The number, within a text, of the line where `prefix` ends."""
    return len((prefix + "x").splitlines())


def _too_long(limit: int) -> str:
    return f"a line of more than {limit:,} characters; set HOTDB_MAX_LINE_BYTES to raise the limit"
