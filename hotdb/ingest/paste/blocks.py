"""A text holding several artifacts: a forum post, a console log, an issue pasted whole.

The thread this project answers held a debug table, the Relay IR and a printout of the
tasks between paragraphs of prose. Each text format's ingestor says where blocks of its
format lie in a text (`blocks(lines)`); a text in which blocks of two formats are found
(or two profiles: two tables become two runs) is cut into one source per block, each
read by its format exactly as a file holding only that block would be. Blocks of one
format that follow each other (two Relay modules) stay one source. The lines between
blocks are reported once, as a count and their line ranges.

A block keeps the file's line numbers (errors and warnings point into the whole text)
and is identified by its own content hash, so a block and the same text as a file of
its own are one source.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from hotdb.ingest.reader import Reader
from hotdb.ingest.source import Source
from hotdb.ingest.text import LineRuns

# Texts larger than this are artifacts of their own (a tuning log, a large report): not pastes.
MAX_PASTE_BYTES = 16 * 2**20
# Nor is a text with a line longer than this (a paste is prose and printouts): each format's
# search for its blocks is linear, but with ~45 searches a 16 MiB line took 21 s
MAX_PASTE_LINE = 2**20


@dataclass(frozen=True)
class Block:
    source: Source
    ingestor: Reader


def is_text(source: Source) -> bool:
    """A text that may be a paste: not a folder, not streamed, not JSON (a report, a graph,
    a log of records is a file of its own), not larger than a paste."""
    if source.members or source.streamed_size is not None or len(source.data) > MAX_PASTE_BYTES:
        return False
    return not re.match(r'\s*(\{|\[\s*[\[{"\d-])', source.head)


def split(source: Source, registry: list[Reader], *, alone: bool = False) -> tuple[list[Block], str | None] | None:
    """The blocks of a text holding several artifacts, and a note on the lines between
    them; None when the source is one artifact (or no text at all). With `alone`, also the
    block of a text that holds one artifact amid prose (which no format recognised whole)."""
    if not is_text(source):
        return None
    try:
        lines = source.lines
    except Exception:  # not text: detection says so
        return None
    if max(map(len, lines), default=0) > MAX_PASTE_LINE:
        return None
    claims: list[tuple[int, int, Reader]] = []
    taken = [False] * len(lines)
    for ingestor in registry:
        finder = getattr(ingestor, "blocks", None)
        if finder is None:
            continue
        for start, end in finder(lines):
            if end > start and not any(taken[start:end]):
                claims.append((start, end, ingestor))
                taken[start:end] = [True] * (end - start)
    claims.sort(key=lambda c: c[0])
    merged: list[list] = []
    for start, end, ingestor in claims:
        if merged and merged[-1][2] is ingestor and ingestor.role != "profile":
            merged[-1][1] = end  # one artifact printed in parts (two modules, a log with comments)
        else:
            merged.append([start, end, ingestor])
    profiles = sum(1 for _, _, ingestor in merged if ingestor.role == "profile")
    if not merged or (len({ingestor.name for _, _, ingestor in merged}) < 2 and profiles < 2 and not alone):
        return None
    blocks = []
    for start, end, ingestor in merged:
        text = ("\n".join(lines[start:end]) + "\n").encode()
        blocks.append(Block(Source(source.path, b"\n" * start + text, digest=hashlib.sha256(text).hexdigest(),
                                   part=f"lines {source.file_line(start + 1)}-{source.file_line(end)}",
                                   line_origin=source.line_origin, part_size=len(text)), ingestor))
    covered = {i for start, end, _ in merged for i in range(start, end)}
    outside = LineRuns()
    for i, line in enumerate(lines):
        if line.strip() and i not in covered:
            outside.add(source.file_line(i + 1))
    return blocks, _skipped(source, len(blocks), outside)


def _skipped(source: Source, blocks: int, outside: LineRuns) -> str | None:
    """The note on the lines of a text that no block holds."""
    if not outside:
        return None
    one = len(outside) == 1
    return (f"{source.name}: {blocks} {'artifact' if blocks == 1 else 'artifacts'} found; {len(outside)} "
            f"{'line' if one else 'lines'} {'around it' if blocks == 1 else 'between them'} "
            f"{'is' if one else 'are'} not part of any and {'was' if one else 'were'} skipped (lines {outside})")


def split_repeated(source: Source, ingestor: Reader) -> tuple[list[Block], str | None] | None:
    """The runs of a text too large to be a paste (or streamed) that holds several of one
    profile format one after another (a debug table printed at every run): a block each,
    as `split` cuts a paste, with the same hashes, sizes and note. A file that holds the
    format's header once costs one scan of its bytes; one that holds it more, three passes
    over its lines (where the blocks are; their hashes; the blocks read in turn from one
    stream of lines), in memory that does not grow with it."""
    marker = getattr(ingestor, "repeats", None)
    if marker is None or ingestor.role != "profile" or source.members or is_text(source) or not _twice(source, marker):
        return None
    spans, outside = _spans(source, ingestor)
    if len(spans) < 2:
        return None
    digests, sizes = [hashlib.sha256() for _ in spans], [0] * len(spans)
    k = 0
    for number, line in source.iter_lines():
        while k < len(spans) and number > spans[k][1]:
            k += 1
        if k == len(spans):
            break
        if number > spans[k][0]:
            data = (line + "\n").encode()
            digests[k].update(data)
            sizes[k] += len(data)
    shared = _SharedLines(source)
    blocks = [Block(Source(source.path, source.data, streamed_size=source.streamed_size, digest=digest.hexdigest(),
                           part=f"lines {start + 1}-{end}", part_size=size, lines_from=shared.between(start, end)), ingestor)
              for (start, end), digest, size in zip(spans, digests, sizes)]
    return blocks, _skipped(source, len(blocks), outside)


def _twice(source: Source, marker: bytes) -> bool:
    """Whether the bytes hold `marker` twice (a UTF-16 text: whether it may)."""
    if source.head and not source.data.startswith(marker[:1]) and source.data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    found, tail = 0, b""
    for chunk in source.chunks():
        data = tail + chunk
        found += data.count(marker)
        if found >= 2:
            return True
        tail = data[-(len(marker) - 1):] if len(marker) > 1 else b""
        found -= tail.count(marker)  # counted again with the next chunk
    return False


def _spans(source: Source, ingestor) -> tuple[list[tuple[int, int]], LineRuns]:
    """The format's blocks, 0-based, and the filled lines outside them, in one pass. The
    filled lines not yet known to be in a block or not are kept as runs: a table's rows
    are one run, however many."""
    spans: list[tuple[int, int]] = []
    outside, pending = LineRuns(), []  # [first, last] 0-based runs of filled lines

    def watched():
        for number, line in source.iter_lines():
            if line.strip():
                if pending and pending[-1][1] == number - 2:
                    pending[-1][1] = number - 1
                else:
                    pending.append([number - 1, number - 1])
            yield number - 1, line

    for start, end in ingestor.spans(watched()):
        kept = []
        for first, last in pending:
            for i in range(first, min(last, start - 1) + 1):
                outside.add(i + 1)
            if last >= end:
                kept.append([max(first, end), last])
        pending[:] = kept
        spans.append((start, end))
    for first, last in pending:
        for i in range(first, last + 1):
            outside.add(i + 1)
    return spans, outside


class _SharedLines:
    """One stream of a source's lines, read in turn by the blocks cut from it, in order."""

    def __init__(self, source: Source) -> None:
        self._lines = source.iter_lines()
        self._next: tuple[int, str] | None = None

    def between(self, start: int, end: int):
        return lambda: self._read(start, end)

    def _read(self, start: int, end: int):
        while True:
            item, self._next = self._next or next(self._lines, None), None
            if item is None:
                return
            if item[0] > end:
                self._next = item  # the next block's
                return
            if item[0] > start:
                yield item
