"""Fuzzing every parser: random bytes and structure-aware mutations of real-format inputs.
Whatever parses is also stored (the shared loader), so a value a parser lets through but
no column holds is found too. Nothing may escape but hotdb's own ParseError.
`HOTDB_FUZZ_EXAMPLES=2500` runs the long campaign (see tests/README.md)."""

from __future__ import annotations

import itertools
import os

import pytest
from helpers import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.examples import example_files
from hotdb.ingest import REGISTRY, pipeline
from hotdb.store.connection import Store
from hotdb.store.loader import load

EXAMPLES = int(os.environ.get("HOTDB_FUZZ_EXAMPLES", "40"))
SEEDS = {
    "debug-table": example_files("vgg16")[0],
    "relay": example_files("vgg16")[1],
    "autotvm-tasks": example_files("vgg16")[2],
    "autotvm-log": example_files("vgg16")[3],
    "relay-fused": DATA / "relay/fused_small.relay.txt",
    "profile-json": DATA / "profile-report/resnet50_nhwc.report.json",
    "profile-csv": DATA / "profile-report/resnet50_nhwc.report.csv",
    "profile-table": DATA / "profile-report/resnet50_nhwc.report.txt",
    "graph-json": DATA / "graph-json/vgg16.graph.json",
    "relax": DATA / "relax/small_convnet.fused.relax.py",
    "listing": DATA / "autotvm-tasks/listing.txt",
    "thread-paste": DATA / "thread/thread.txt",
    "thread-kernels": DATA / "thread/vgg16.kernels.txt",
    "relay-untyped": DATA / "relay/untyped_small.relay.txt",
    "debug-log": DATA / "debug-log/vgg16.runtime07.log",
    "debug-log-08": DATA / "debug-log/vgg16.executor08.log",
    "vm-stat": DATA / "vm-stat/vgg16.shapes.vm_stat.txt",
    "ansor-tasks": DATA / "ansor-tasks/small_nhwc.txt",
}


def mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for kind, position, length, byte in edits:
        if not out:
            break
        at = position % len(out)
        if kind == 0:
            del out[at:at + length]
        elif kind == 1:
            out[at:at] = out[at:at + length]
        elif kind == 2:
            out[at] = byte
        else:
            del out[at:]  # truncate
    return bytes(out)


edits = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(1, 200), st.integers(0, 255)),
                 min_size=1, max_size=4)


@pytest.fixture(scope="module")
def store():
    """One in-memory database for every example (each under a model of its own)."""
    with Store(":memory:") as opened:
        yield opened


MODELS = (f"fuzz-{n}" for n in itertools.count())


def only_parse_errors(store, path, data: bytes, fmt=None) -> None:
    """Read as `hotdb ingest` does (detection, pasted texts cut into their artifacts), then store."""
    path.write_bytes(data)
    try:
        items = pipeline.read([path], fmt)
        load(store, next(MODELS), [(item.source, item.format, item.parsed) for item in items])
    except ParseError:
        pass


@pytest.mark.parametrize("name", sorted(SEEDS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=edits)
def test_mutated_inputs_raise_only_parse_errors(store, tmp_path, name, edits):
    seed = SEEDS[name].read_bytes()
    only_parse_errors(store, tmp_path / SEEDS[name].name, mutate(seed, edits))


@pytest.mark.parametrize("fmt", [i.name for i in REGISTRY if i.name not in ("debug-dump", "ms-database")])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=600))
def test_random_bytes_forced_format(store, tmp_path, fmt, data):
    only_parse_errors(store, tmp_path / "random.txt", data, fmt)


@pytest.mark.parametrize("name", ["profile-json", "profile-csv"])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=edits)
def test_mutated_large_reports_raise_only_parse_errors(store, tmp_path, monkeypatch, name, edits):
    """The same mutations through the large-file reader (DuckDB's readers, ingest/profile/report/streamed_csv.py)."""

    monkeypatch.setenv("HOTDB_STREAM_BYTES", str(1))
    seed = SEEDS[name].read_bytes()
    only_parse_errors(store, tmp_path / SEEDS[name].name, mutate(seed, edits), "profile-report")


# Renderings a page, a pager or a terminal applies (what hotdb/ingest/paste/unrender.py undoes),
# composed at random over pasted artifacts, before the byte mutations.
RENDERINGS = {
    "curly": lambda t: t.replace("'", "\u2019").replace('"', "\u201d"),
    "pager": lambda t: "".join(line + "$\n" for line in t.split("\n")),
    "comment": lambda t: "".join("# " + line + "\n" for line in t.split("\n")),
    "quote": lambda t: "".join("> " + line + "\n" for line in t.split("\n")),
    "entities": lambda t: t.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"),
    "eaten": lambda t: t.replace("/* ", "/ ").replace(" */", " /"),
    "wrapped": lambda t: "\n".join(line[i:i + 80] for line in t.split("\n") for i in range(0, max(len(line), 1), 80)),
    "nbsp": lambda t: t.replace("  ", "\u00a0 "),
    "tabs": lambda t: t.replace("  ", "\t"),
}
PASTES = ["thread-paste", "debug-table", "relay", "thread-kernels", "listing", "vm-stat", "debug-log", "ansor-tasks"]


@settings(max_examples=EXAMPLES * 5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.tuples(st.sampled_from(PASTES), st.integers(0, 10**6), st.integers(1, 120)), min_size=1, max_size=3),
       renderings=st.lists(st.sampled_from(sorted(RENDERINGS)), max_size=3),
       edits=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(1, 200), st.integers(0, 255)),
                      max_size=2))
def test_rendered_pastes_raise_only_parse_errors(store, tmp_path, parts, renderings, edits):
    """Pieces of real-format artifacts between lines of prose, rendered, then mutated."""
    chunks = ["Here is what I got:\n"]
    for name, start, count in parts:
        lines = SEEDS[name].read_text(encoding="utf-8").splitlines()
        at = start % max(len(lines), 1)
        chunks.append("\n".join(lines[at:at + count]) + "\n\nand then\n")
    text = "".join(chunks)
    for rendering in renderings:
        text = RENDERINGS[rendering](text)
    only_parse_errors(store, tmp_path / "paste.txt", mutate(text.encode(), edits) if edits else text.encode())
