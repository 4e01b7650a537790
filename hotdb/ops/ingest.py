"""Ingest: files of one build of one model, parsed first (ingest/pipeline.py), then stored in
one transaction (store/loader.py) or as new lake files (store/lake.py)."""

from __future__ import annotations

from pathlib import Path

from hotdb.store.database import Database


def ingest(database: Database, paths: list[str | Path], *, model: str | None = None,
           run: str | list[str] | None = None, input_format: str | None = None, tags: dict[str, str] | None = None,
           strict: bool = False):
    """Parse every file first (nothing is written if one fails), then store them all as one
    build of `model` (default: the first file's name up to its first dot). A pasted text's
    artifact that cannot be read is skipped with a warning, unless `strict`."""
    from hotdb.ingest import pipeline

    items = [(item.source, item.format, item.parsed) for item in pipeline.read(paths, input_format, strict=strict)]
    return database.load(model or pipeline.default_model_name(paths), items, run_label=run, tags=tags)
