"""Accepted variants of one file: encodings, line endings, tabs, gzip, folders."""

from __future__ import annotations

import codecs
import gzip

import pytest

from hotdb.ingest import detect
from hotdb.ingest.base import Source


def rows(path):
    source = Source.read(path)
    parsed = detect(source).parse(source)
    return [(n.func_name, n.time_us, n.out_shape) for n in parsed.nodes] or \
           [(c.op_name, c.arg_shapes) for c in parsed.ir_calls] or [(t.task_name, t.task_args) for t in parsed.tasks]


def tabs(text: str) -> str:
    import re
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
    assert result.code == 0 and result.out.count("ingested") == 3
    assert len(cli("top", "--coverage", "90", "-f", "json").json()) == 8
