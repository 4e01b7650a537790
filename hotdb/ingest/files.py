"""From paths to parsed sources: folders expanded, pasted texts cut into their artifacts,
each source detected (or read as the format asked for) and parsed, and formats that come
in pairs paired. Nothing here touches the database: the loader stores what this returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hotdb.errors import HotdbError, ParseError, UsageError
from hotdb.ingest.base import FOLDER_FILES, Ingestor, Source
from hotdb.ingest.rows import Parsed
from hotdb.ingest.warnings import summarise


@dataclass
class Item:
    """One parsed source of an ingest."""

    source: Source
    format: str
    parsed: Parsed


def read(paths: list[str | Path], format_name: str | None = None) -> list[Item]:
    """Parse every file first (an ingest writes nothing if one fails)."""
    from hotdb.ingest import REGISTRY, detect, get, paste

    items: list[Item] = []
    for path in expand(paths):
        source = Source.read(path)
        pieces = None if format_name else paste.split(source, REGISTRY)
        if pieces is None:
            items.append(_parse(source, get(format_name) if format_name else detect(source)))
            continue
        blocks, note = pieces
        for n, block in enumerate(blocks):
            item = _parse(block.source, block.ingestor)
            if n == 0 and note:
                item.parsed.warnings.insert(0, note)
            items.append(item)
    _pair(items)
    return items


def _parse(source: Source, ingestor: Ingestor) -> Item:
    try:
        parsed = ingestor.parse(source)
    except HotdbError:
        raise
    except Exception as exc:  # a parser bug must not cost the user a traceback (--debug shows it)
        raise ParseError(source.path, None, f"could not be read as {ingestor.name}: {type(exc).__name__}: {exc} "
                                            f"(if the file is valid, this is a hotdb bug)") from exc
    parsed.warnings = summarise(parsed.warnings)
    return Item(source, ingestor.name, parsed)


def _pair(items: list[Item]) -> None:
    """One run printed and dumped: the table's times are the run, the dump lends its shapes."""
    formats = sorted(item.format for item in items if item.parsed.role == "profile")
    if formats == ["debug-dump", "debug-table"]:
        for item in items:
            if item.format == "debug-dump":
                parsed = item.parsed
                parsed.role, parsed.nodes, parsed.samples, parsed.run = "graph", [], [], None


def expand(paths: list[str | Path]) -> list[Path]:
    """Files to read: a folder stands for the files in it, except that a debug executor
    dump folder (`_tvmdbg_device_*`) and a MetaSchedule database folder found in it are
    inputs of their own."""
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.is_dir():
            files.append(p)
            continue
        dumps = sorted({f.parent for group in FOLDER_FILES for f in p.rglob(group[0])})
        files.extend(dumps)
        files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")
                            and not any(d in f.parents for d in dumps)))
    if not files:
        raise UsageError("no files to ingest")
    return files


def default_model_name(paths: list[str | Path]) -> str:
    """The model a set of files describes when --model is not given: the first file's
    name up to its first dot (`vgg16.debug_table.txt` -> `vgg16`)."""
    first = expand(paths)[0]
    return first.name.split(".", 1)[0] or first.name
