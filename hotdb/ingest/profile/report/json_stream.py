"""A JSON text too large to hold, read from its file in chunks and decoded one value at a
time by Python's own decoder (C speed): what stays in memory is a chunk and the value
being decoded, however large the file. A reader walks the document's outer structure
(`peek`, `take`, `key`) and decodes the values inside it (`value`, or `items` for the
values of a long array, one by one).

Errors are said as the decoder says them for a text read whole (`json.loads`): the
decoder's message, the line (line breaks counted as `json` counts them) and the column;
a text that is not UTF-8, or holds a NUL byte, as `Source.text` says it.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterable, Iterator

_SPACE = re.compile(r"[ \t\n\r]*")
# a value cut by the end of a chunk fails within a few characters of it (a literal, an
# escape, a number); a string fails where it starts
_CUT = 8


class JsonStream:
    """The decoded text of `chunks` (bytes), a window of it at a time.
    `error(line, message)` makes the exception raised for a text that is not JSON (the
    message begins "expected `what`: ", then the decoder's words); `max_value` bounds the
    characters one value may take (HOTDB_MAX_LINE_BYTES)."""

    def __init__(self, chunks: Iterable[bytes], encoding: str, error: Callable[[int | None, str], Exception],
                 max_value: int, what: str = "a JSON text") -> None:
        self._chunks = iter(chunks)
        self._decoder = codecs.getincrementaldecoder(encoding)()
        self._encoding = encoding
        self._error = error
        self._max_value = max_value
        self._what = what
        self._scan = json.JSONDecoder(strict=False).scan_once  # strict=False: as the reader of a whole text
        self.text, self.pos, self.done = "", 0, False
        self._lines = 0  # line breaks before the window
        self._column = 0  # characters of the current line before the window
        self._offset = 0  # bytes read

    def _more(self) -> bool:
        """Read the next chunk into the window, dropping what was consumed; False at the end."""
        if self.done:
            return False
        chunk = next(self._chunks, None)
        try:
            new = self._decoder.decode(chunk or b"", chunk is None)
        except UnicodeDecodeError as exc:
            # the decoder's object: the bytes it held from the chunk before, then this chunk
            data, start = exc.object, max(exc.start, 0)
            line = self.where(len(self.text))[0] + data[:start].count(b"\n")
            offset = self._offset - (len(data) - len(chunk or b"")) + start
            raise self._error(line, f"not {self._encoding} text (byte 0x{data[start]:02x} at offset {offset})") from None
        text, pos = self.text, self.pos
        breaks = text.count("\n", 0, pos)
        self._lines += breaks
        self._column = pos - text.rfind("\n", 0, pos) - 1 if breaks else self._column + pos
        self._offset += len(chunk or b"")
        self.text, self.pos, self.done = text[pos:] + new, 0, chunk is None
        if "\x00" in new:
            raise self._error(self.where(len(self.text) - len(new) + new.index("\x00"))[0],
                              "binary data (NUL byte) where text was expected")
        return True

    def where(self, pos: int) -> tuple[int, int]:
        """(line, column), both from 1, of the window's position `pos`, as `json` counts them."""
        text = self.text
        breaks = text.count("\n", 0, pos)
        column = pos - text.rfind("\n", 0, pos) if breaks else self._column + pos + 1
        return self._lines + breaks + 1, column

    def fail(self, pos: int, message: str) -> Exception:
        """The error of a text that is not the JSON expected at `pos`: `message` in the
        decoder's words ("Expecting ',' delimiter")."""
        line, column = self.where(pos)
        return self._error(line, f"expected {self._what}: {message} at column {column}")

    def peek(self) -> str:
        """The next character that is not white space, not taken; "" at the end."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()
            if self.pos < len(self.text) or not self._more():
                return self.text[self.pos:self.pos + 1]

    def take(self, chars: str, message: str) -> str:
        """The next character, which must be one of `chars` (else the error says `message`)."""
        char = self.peek()
        if not char or char not in chars:
            raise self.fail(self.pos, message)
        self.pos += 1
        return char

    def value(self):
        """The next value, decoded whole."""
        self.peek()
        while True:
            try:
                value, end = self._scan(self.text, self.pos)
            except StopIteration as exc:  # no value starts here
                self._refill_or_fail(exc.value, "Expecting value")
                continue
            except json.JSONDecodeError as exc:
                self._refill_or_fail(exc.pos, exc.msg, cut=exc.msg.startswith("Unterminated string"))
                continue
            if end < len(self.text) or not self._more():  # a number may go on in the next chunk
                self.pos = end
                return value

    def _refill_or_fail(self, pos: int, message: str, cut: bool = False) -> None:
        """A value failed at `pos`: read on if the chunk's end may have cut it, else raise."""
        cut = cut or pos >= len(self.text) - _CUT
        if cut and len(self.text) - self.pos > self._max_value:
            line, column = self.where(self.pos)
            raise self._error(line, f"a value of more than {self._max_value:,} characters from column {column}; "
                                    "set HOTDB_MAX_LINE_BYTES to raise the limit")
        if not (cut and self._more()):
            raise self.fail(pos, message)

    def key(self) -> str:
        """An object's next member name, and the colon after it."""
        if self.peek() != '"':
            raise self.fail(self.pos, "Expecting property name enclosed in double quotes")
        name = self.value()
        self.take(":", "Expecting ':' delimiter")
        return name

    def items(self) -> Iterator:
        """The values of the array whose '[' was just taken, each decoded when asked for;
        the ']' is taken after the last."""
        if self.peek() == "]":
            self.pos += 1
            return
        scan = self._scan
        while True:
            # a value and its comma with nothing between (as TVM writes them): decoded here;
            # anything else (white space, a chunk's end, an error) by the general steps
            try:
                value, end = scan(self.text, self.pos)
                after = self.text[end]
            except (StopIteration, ValueError, IndexError):
                after = None
            if after == ",":
                self.pos = end + 1
                yield value
                continue
            if after == "]":
                self.pos = end + 1
                yield value
                return
            yield self.value()
            if self.take(",]", "Expecting ',' delimiter") == "]":
                return
