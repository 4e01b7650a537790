"""The bad-input corpus (tests/data/bad/, made by make_corpus.py): every case is a clear
error naming the file, exit code 1, no traceback, and no table changes."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, table_counts

CORPUS = DATA / "bad"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text())


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A database holding one build, copied for every case."""
    import subprocess
    import sys

    from hotdb.examples import example_files

    path = tmp_path_factory.mktemp("seed") / "seed.duckdb"
    subprocess.run([sys.executable, "-m", "hotdb", "--db", str(path), "ingest", *map(str, example_files("vgg16")[:3]),
                    "--model", "vgg16"], check=True, capture_output=True, timeout=120)
    return path


def test_corpus_is_large_enough():
    assert len(MANIFEST) >= 40
    assert {c["file"] for c in MANIFEST} <= {p.name for p in CORPUS.iterdir()}


@pytest.mark.parametrize("case", MANIFEST, ids=[c["file"] for c in MANIFEST])
def test_bad_input(cli, db, seeded, case):
    import shutil

    shutil.copy(seeded, db)
    before = table_counts(db)
    args = ["ingest", CORPUS / case["file"], "--model", "vgg16"] + (["--format", case["format"]] if case["format"] else [])
    result = cli(*args)
    err = result.err.replace("\n", " ")
    assert result.code == 1, (case, result.out)
    assert case["file"] in err and case["expected"] in err, err
    assert "Traceback" not in err
    assert table_counts(db) == before
