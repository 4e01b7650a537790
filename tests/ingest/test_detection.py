"""Detection, file variants (encodings, line ends, gzip, folders) and random bytes."""

from __future__ import annotations

import codecs
import gzip
import re

import pytest
from helpers import parse
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest import REGISTRY, detect
from hotdb.ingest.source import Source


def test_every_format_is_detected(vgg16):
    assert [parse(vgg16[k])[0] for k in ("table", "relay", "tasks", "log")] == \
           ["debug-table", "relay", "autotvm-tasks", "autotvm-tasks"]


def test_every_format_says_its_role_in_the_one_vocabulary():
    """rows.ROLES is the one list of roles: every format uses one, and the stored column's
    documentation names each."""
    from hotdb.rows import ROLES
    from hotdb.store.connection import Store

    assert {ingestor.role for ingestor in REGISTRY} <= set(ROLES)
    with Store(":memory:") as store:
        (comment,), = store.con.execute("SELECT comment FROM duckdb_columns() "
                                        "WHERE table_name = 'sources' AND column_name = 'role'").fetchall()
    assert all(role in comment for role in ROLES)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_parse_errors(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "f.txt"
    path.write_bytes(data)
    for ingestor in REGISTRY:
        try:
            source = Source.read(path)
            ingestor.sniff(source)
            ingestor.parse(source)
        except ParseError:
            pass


def test_every_public_sample_ingests_by_detection(cli, db):
    from helpers import SAMPLES
    files = sorted(p for p in SAMPLES.glob("*") if p.suffix != ".md") if SAMPLES.exists() else []
    if not files:
        pytest.skip(f"public samples not found in {SAMPLES}")
    for i, path in enumerate(files):
        result = cli("ingest", path, "--model", f"sample{i}")
        assert result.code == 0, (path.name, result.err)
        assert "ingested" in result.err
    assert cli("models", "-f", "json").json()[-1]["model"] == f"sample{len(files) - 1}"


def rows(path):
    source = Source.read(path)
    parsed = detect(source).parse(source)
    return [(n.func_name, n.time_us, n.out_shape) for n in parsed.nodes] or \
           [(c.op_name, c.arg_shapes) for c in parsed.ir_calls] or [(t.task_name, t.task_args) for t in parsed.tasks]


def tabs(text: str) -> str:
    return "\n".join(re.sub(r" {2,}", "\t", line) for line in text.splitlines()) + "\n"


VARIANTS = {
    "utf8-bom": lambda t: codecs.BOM_UTF8 + t.encode(),
    "utf16-bom": lambda t: t.encode("utf-16"),  # PowerShell's `>` redirection
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "gzip": lambda t: gzip.compress(t.encode()),
    "tabs": lambda t: tabs(t).encode(),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("kind", ["table", "relay", "tasks", "log"])
def test_variants_parse_to_the_same_rows(tmp_path, vgg16, variant, kind):
    if variant == "tabs" and kind != "table":
        pytest.skip("tabs replace column padding in printed tables only")
    text = vgg16[kind].read_text()
    path = tmp_path / f"{kind}.{variant}"
    path.write_bytes(VARIANTS[variant](text))
    assert rows(path) == rows(vgg16[kind])


def test_a_folder_of_files_is_one_build(cli, tmp_path, vgg16):
    folder = tmp_path / "build"
    folder.mkdir()
    for key in ("table", "relay", "tasks"):
        (folder / vgg16[key].name).write_bytes(vgg16[key].read_bytes())
    result = cli("ingest", folder, "--model", "vgg16")
    assert result.code == 0 and result.err.count("ingested") == 3
    assert len(cli("top", "--coverage", "90", "-f", "json").json()) == 8
