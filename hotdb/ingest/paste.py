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

from hotdb.ingest.base import Ingestor, Source
from hotdb.ingest.text import line_ranges

# Texts larger than this are artifacts of their own (a tuning log, a large report): not pastes.
MAX_PASTE_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Block:
    source: Source
    ingestor: Ingestor


def is_text(source: Source) -> bool:
    """A text that may be a paste: not a folder, not streamed, not JSON (a report, a graph,
    a log of records is a file of its own), not larger than a paste."""
    if source.members or source.streamed_size is not None or len(source.data) > MAX_PASTE_BYTES:
        return False
    return not re.match(r'\s*(\{|\[\s*[\[{"\d-])', source.head)


def split(source: Source, registry: list[Ingestor], *, alone: bool = False) -> tuple[list[Block], str | None] | None:
    """The blocks of a text holding several artifacts, and a note on the lines between
    them; None when the source is one artifact (or no text at all). With `alone`, also the
    block of a text that holds one artifact amid prose (which no format recognised whole)."""
    if not is_text(source):
        return None
    try:
        lines = source.lines
    except Exception:  # not text: detection says so
        return None
    claims: list[tuple[int, int, Ingestor]] = []
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
        text = "\n".join(lines[start:end]) + "\n"
        blocks.append(Block(Source(source.path, ("\n" * start + text).encode(), digest=hashlib.sha256(text.encode()).hexdigest(),
                                   part=f"lines {source.file_line(start + 1)}-{source.file_line(end)}",
                                   line_origin=source.line_origin), ingestor))
    covered = {i for start, end, _ in merged for i in range(start, end)}
    outside = [source.file_line(i + 1) for i, line in enumerate(lines) if line.strip() and i not in covered]
    note = None
    if outside:
        note = (f"{source.name}: {len(blocks)} {'artifact' if len(blocks) == 1 else 'artifacts'} found; {len(outside)} "
                f"{'line' if len(outside) == 1 else 'lines'} {'around it' if len(blocks) == 1 else 'between them'} "
                f"{'is' if len(outside) == 1 else 'are'} not part of any and {'was' if len(outside) == 1 else 'were'} skipped (lines {line_ranges(outside)})")
    return blocks, note
