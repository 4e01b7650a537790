"""The bad-input corpus (tests/data/bad/, made by make_corpus.py): every case is a clear
error naming the file, exit code 1, no traceback, and no table changes."""

from __future__ import annotations

import json

import pytest
from helpers import DATA, table_counts

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


# --- one malformed file each of formats that came later: graph JSON, AutoTVM v0.1, Relax
MALFORMED = {
    "graph.json": ('{"nodes": [{"op": "tvm_op", "name": "k", "attrs": {"func_name": "k"}, "inputs": [[5, 0, 0]]}], '
                   '"arg_nodes": [], "attrs": {"shape": ["list_shape", [[1, 2]]]}, "node_row_ptr": [0, 1]}', "shape list"),
    "v01.log": ('{"i": ["llvm", "topi_nn_conv2d", [["TENSOR", [1, 3, 8, 8], "float32"]], {}, "not a list", {}], "r": [[1e-3], 0, 1.0, 1], "v": 0.1}\n',
                "expected i = [target"),
    "bad.relax.py": ('@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):\n'
                     '        lv: R.Tensor((1, 3), dtype="float32") = R.nn.relu(x\n', "bad.relax.py:5"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_issue3_formats(cli, db, tmp_path, vgg16, name):
    cli("ingest", vgg16["table"], "--model", "m")
    before = table_counts(db)
    text, message = MALFORMED[name]
    path = tmp_path / name
    path.write_text(text)
    result = cli("ingest", path, "--model", "m")
    assert result.code == 1 and message in result.err.replace("\n", ""), result.err
    assert "Traceback" not in result.err and table_counts(db) == before
