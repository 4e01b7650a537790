"""The contract every reader keeps: `sniff(source) -> bool`, `parse(source) -> Parsed`.

A reader is one input format (`--input-format NAME`), in a file of its name in the folder
of the role its rows take (profile/, graph/, ir/, tasks/), registered by one line in
hotdb/ingest/__init__.py. Readers never touch the database; the loader
(hotdb/store/loader.py) stores what they return, in one transaction per ingest.
"""

from __future__ import annotations

from typing import Protocol

from hotdb.ingest.source import Source
from hotdb.rows import Parsed


class Reader(Protocol):
    """One format. Each role's folder in hotdb/ingest/ holds one file per format, registered in __init__.

    Text formats may also say where blocks of their format lie in a pasted text:
    `blocks(lines) -> [(first, one past last), ...]` (0-based line indexes; paste/blocks.py)."""

    name: str  #: what `--input-format` takes, e.g. "debug-table"
    role: str  #: one of rows.ROLES
    reads: str  #: one line for `hotdb formats`: what the format is
    detects: str  #: one line: how sniff recognises it

    def sniff(self, source: Source) -> bool: ...

    def parse(self, source: Source) -> Parsed: ...
