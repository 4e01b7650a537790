"""From paths to parsed sources: folders expanded, pasted texts cut into their artifacts,
each source detected (or read as the format asked for) and parsed, and formats that come
in pairs paired. Nothing here touches the database: the loader stores what this returns.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from hotdb import limits
from hotdb.errors import HotdbError, ParseError, UsageError, ctrl_c
from hotdb.ingest.notes import summarise
from hotdb.ingest.reader import Reader
from hotdb.ingest.source import FOLDER_FILES, Source
from hotdb.rows import Parsed


@dataclass
class Item:
    """One parsed source of an ingest."""

    source: Source
    format: str
    parsed: Parsed


def read(paths: list[str | Path], format_name: str | None = None, *, strict: bool = False) -> list[Item]:
    """Parse every file first (an ingest writes nothing if one fails). A paste's block that
    fails is skipped with a warning and the other blocks are read, unless `strict`."""
    items: list[Item] = []
    for path in expand(paths):
        source, rendered = _unrendered(Source.read(path))
        found = _read_source(source, format_name, strict)
        if rendered:
            found[0].parsed.warnings.insert(0, rendered)
        items.extend(found)
    _pair(items)
    return items


def _read_source(source: Source, format_name: str | None, strict: bool = False) -> list[Item]:
    """One input: a file of one format, or a pasted text cut into its artifacts (also one
    artifact amid prose that no format recognises whole)."""
    from hotdb.ingest import REGISTRY, detect, get
    from hotdb.ingest.paste import blocks as cut

    if format_name:
        return [_parse(source, get(format_name))]
    pieces = cut.split(source, REGISTRY)
    if pieces is None:
        try:
            ingestor = detect(source)
        except ParseError:
            pieces = cut.split(source, REGISTRY, alone=True)
            if pieces is None:
                raise
        else:
            pieces = cut.split_repeated(source, ingestor)
            if pieces is None:
                return [_parse(source, ingestor)]
    blocks, note = pieces
    items, skipped = _parse_blocks(blocks, strict)
    items[0].parsed.warnings[:0] = [note] * bool(note) + skipped
    return items


def _parse_blocks(blocks: list, strict: bool) -> tuple[list[Item], list[str]]:
    """Each block of a paste read as a file of its own. A block that fails (an IR cut where
    the writer elided its parameters, a table a page broke) costs that block only: the
    others are read, and the warning names its lines, format and reason; with `strict`, or
    where no block reads, the paste fails with the first block's error, as a file does."""
    items, skipped, first = [], [], None
    for block in blocks:
        try:
            items.append(_parse(block.source, block.ingestor))
        except ParseError as exc:
            if strict or len(blocks) == 1:
                raise
            first = first or exc
            skipped.append(f"{block.source.name}: {block.source.part} ({block.ingestor.name}) could not be read and "
                           f"were skipped; the paste's other artifacts were stored (--strict refuses the paste): "
                           f"{_reason(exc)}")
    if not items:
        raise first
    return items, skipped


def _reason(exc: ParseError) -> str:
    """The error without its path: the warning names the file once."""
    return (f"line {exc.line}: " if exc.line is not None else "") + (f"[{exc.field}] " if exc.field else "") + exc.message


def _unrendered(source: Source) -> tuple[Source, str | None]:
    """The text as TVM printed it, when a page, pager or terminal rendered it (unrender.py),
    and a note saying what was undone; a file that shows no rendering is kept as it is."""
    from hotdb.ingest.paste import blocks, unrender

    if not blocks.is_text(source):
        return source, None
    try:
        text, lines = source.text, source.lines
    except ParseError:
        return source, None  # not text: detection says so
    undone = unrender.undo(text, lines)
    if not undone.changed:
        return source, None
    new_text = "\n".join(undone.lines) + "\n"
    origin = tuple(undone.origin) if undone.origin is not None else None
    return (Source(source.path, new_text.encode(), digest=hashlib.sha256(new_text.encode()).hexdigest(),
                   part=source.part, line_origin=origin), undone.note(source.name))


def _parse(source: Source, ingestor: Reader) -> Item:
    try:
        parsed = ingestor.parse(source)
    except ParseError as exc:
        if source.line_origin is not None and exc.line is not None:
            raise ParseError(exc.path, source.file_line(exc.line), exc.message, field=exc.field) from None
        raise
    except HotdbError:
        raise
    except Exception as exc:  # a parser bug must not cost the user a traceback (--debug shows it)
        if isinstance(ctrl_c(exc), KeyboardInterrupt):
            raise KeyboardInterrupt from None  # Ctrl-C, which DuckDB reports as its own error
        raise ParseError(source.path, None, f"could not be read as {ingestor.name}: {type(exc).__name__}: {exc} "
                                            f"(if the file is valid, this is a hotdb bug)") from exc
    parsed.warnings = summarise([_file_lines(source, warning) for warning in parsed.warnings])
    source.forget_text()
    return Item(source, ingestor.name, parsed)


def _file_lines(source: Source, warning: str) -> str:
    """A warning's line numbers in the file's numbering, where lines were joined: its
    leading `path:line:` and the `(line N)` / `(lines 3, 9-12)` it names."""
    if source.line_origin is None:
        return warning
    prefix = f"{source.name}:"
    if warning.startswith(prefix):
        number, sep, rest = warning[len(prefix):].partition(":")
        if number.isdigit() and sep:
            warning = f"{prefix}{source.file_line(int(number))}{sep}{rest}"
    return _LINE_LIST.sub(lambda m: m.group(1) + re.sub(r"\d+", lambda n: str(source.file_line(int(n.group()))),
                                                        m.group(2)), warning)


_LINE_LIST = re.compile(r"(\(lines? )([\d, \-]+)(?=[,)])")


def _pair(items: list[Item]) -> None:
    """One run printed and dumped: the table's times are the run, the dump lends its shapes."""
    formats = sorted(item.format for item in items if item.parsed.role == "profile")
    if formats == ["debug-dump", "debug-table"]:
        for item in items:
            if item.format == "debug-dump":
                parsed = item.parsed
                parsed.role, parsed.nodes, parsed.samples, parsed.run = "graph", [], [], None
                parsed.node_file = None  # its rows stay the source's graph nodes (graph_file)


def expand(paths: list[str | Path]) -> list[Path]:
    """Files to read: a folder stands for the files in it, except that a debug executor
    dump folder (`_tvmdbg_device_*`) and a MetaSchedule database folder found in it are
    inputs of their own. More than HOTDB_MAX_FILES inputs are refused before any is read."""
    most = limits.max_files()
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.is_dir():
            files.append(p)
            continue
        if _count_inputs(p, most) > most:
            raise UsageError(f"{p}: the folder holds more than {most:,} files, the most one ingest reads; "
                             "set HOTDB_MAX_FILES to raise the limit")
        dumps = sorted({f.parent for group in FOLDER_FILES for f in p.rglob(group[0])})
        files.extend(dumps)
        files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")
                            and not any(d in f.parents for d in dumps)))
    if not files:
        raise UsageError("no files to ingest")
    if len(files) > most:
        raise UsageError(f"{len(files):,} files to ingest, more than the {most:,} one ingest reads; "
                         "set HOTDB_MAX_FILES to raise the limit")
    return files


def _count_inputs(folder: Path, most: int) -> int:
    """The inputs `expand` finds in a folder, counted up to `most` + 1 only: entries are
    read as the directory yields them, so that a folder of a million files is refused at
    once (rglob lists each directory whole). Like rglob, links to folders are not followed."""
    count, folders = 0, [folder]
    while folders and count <= most:
        here = folders.pop()
        if any((here / group[0]).is_file() for group in FOLDER_FILES):
            count += 1  # a dump or MetaSchedule database: one input, whatever it holds
            continue
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))
                    elif not entry.name.startswith(".") and entry.is_file():
                        count += 1
                        if count > most:
                            break
        except OSError:
            continue  # rglob skips what it cannot list; reading says what is wrong
    return count


# MetaSchedule names its per-task logs after its logger (`logs/tvm.s_tir.meta_schedule.logging.
# task_0_fused_conv2d_add_relu.log`; `tvm.meta_schedule.` before TVM 0.21): the tune is named by
# its work folder, the one holding `logs/`
_TUNE_LOG = re.compile(r"tvm\.(?:\w+\.)?meta_schedule\.")


def default_model_name(paths: list[str | Path]) -> str:
    """The model a set of files describes when --model is not given: the first file's
    name up to its first dot (`vgg16.debug_table.txt` -> `vgg16`); for MetaSchedule's own
    per-task logs, the tune's work folder (`tune_tmp/logs/tvm.meta_schedule...` -> `tune_tmp`)."""
    first = expand(paths)[0]
    if _TUNE_LOG.match(first.name):
        folder = first.resolve().parent
        folder = folder.parent if folder.name == "logs" else folder
        if folder.name:
            return folder.name
    return first.name.split(".", 1)[0] or first.name
