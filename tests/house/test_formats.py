"""Every registered format is whole: where it is read, tested, made and documented can be
found from the tree alone (docs/contributing.md, "Adding a format").

For each reader in the registry: its file is `hotdb/ingest/<role>/<format>.py`, in the
folder of the role its rows take; its test file mirrors it under `tests/ingest/`; our own
fixtures of it lie in `tests/data/<format>/`; `docs/formats.md` has its section; and the
real corpus manifest holds at least one real file of it, unless none has been found yet
(said below, with where it was looked for)."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest
from helpers import DATA, ROOT

from hotdb.ingest import REGISTRY

ROLE_FOLDERS = {"profile": "profile", "graph": "graph", "ir": "ir", "tasks": "tasks"}
MANIFEST = json.loads((ROOT / "tests" / "real_corpus.json").read_text())["files"]
# formats no real file of which has been found (searched: GitHub code, issues and forum
# pages for `_tvmdbg_graph_dump.json` folders and for run_individual's `Op #n ...: us/iter` lines)
NO_REAL_FILE_YET = {"debug-dump", "debug-log"}
FORMATS = sorted(REGISTRY, key=lambda r: r.name)


def _module(name: str) -> str:
    return name.replace("-", "_")


@pytest.mark.parametrize("reader", FORMATS, ids=lambda r: r.name)
def test_the_reader_is_in_its_roles_folder_in_a_file_named_for_its_format(reader):
    path = Path(inspect.getfile(type(reader)))
    assert path == ROOT / "hotdb" / "ingest" / ROLE_FOLDERS[reader.role] / f"{_module(reader.name)}.py"


@pytest.mark.parametrize("reader", FORMATS, ids=lambda r: r.name)
def test_the_format_has_its_test_file(reader):
    path = ROOT / "tests" / "ingest" / ROLE_FOLDERS[reader.role] / f"test_{_module(reader.name)}.py"
    assert path.is_file() and re.search(r"^def test_", path.read_text(), re.M), path


@pytest.mark.parametrize("reader", FORMATS, ids=lambda r: r.name)
def test_the_format_has_fixtures_of_our_own(reader):
    folder = DATA / reader.name
    assert folder.is_dir() and any(p.is_file() for p in folder.rglob("*")), folder


@pytest.mark.parametrize("reader", FORMATS, ids=lambda r: r.name)
def test_the_format_has_its_section_in_docs_formats(reader):
    text = (ROOT / "docs" / "formats.md").read_text()
    assert re.search(rf"^### `{re.escape(reader.name)}`", text, re.M), reader.name


@pytest.mark.parametrize("reader", FORMATS, ids=lambda r: r.name)
def test_the_real_corpus_holds_a_file_of_the_format(reader):
    formats = {f for entry in MANIFEST.values() for f in ([entry["format"]] if isinstance(entry.get("format"), str)
                                                          else entry.get("format", []))}
    if reader.name in NO_REAL_FILE_YET:
        assert reader.name not in formats, f"{reader.name} has a real file now: take it off NO_REAL_FILE_YET"
    else:
        assert reader.name in formats


def test_every_reader_is_registered():
    """A reader file in a role's folder that the registry does not hold is a format lost."""
    registered = {Path(inspect.getfile(type(r))) for r in REGISTRY}
    for folder in ROLE_FOLDERS.values():
        for path in (ROOT / "hotdb" / "ingest" / folder).glob("*.py"):
            text = path.read_text()
            if re.search(r"^\s+detects = ", text, re.M):
                assert path in registered, path
