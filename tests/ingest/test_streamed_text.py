"""Debug logs, debug tables, Relay text and Relax TVMScript read as a stream of lines (`Source.iter_lines`, lines.py):
a file larger than HOTDB_STREAM_BYTES stores exactly the rows, warnings and hash that it
stores when read whole, and its errors name the same lines. Streaming is forced here on
small files by setting HOTDB_STREAM_BYTES to 0 (every non-empty file is streamed), and the
Arrow chunks (rows.ArrowRows, rows.Samples) made small, so that rows cross them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import DATA, REAL, stored_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb import rows
from hotdb.api import Hotdb
from hotdb.errors import ParseError
from hotdb.examples import example_files
from hotdb.ingest.lines import encoding_of, stream_lines
from hotdb.ingest.profile.debug_table import DebugTable
from hotdb.ingest.source import Source

# real files (TVM's docs, users' posts) lie in ../shared/real/: read where they are, never copied here
LOGS = [DATA / "debug-log" / "vgg16.runtime07.log", DATA / "debug-log" / "vgg16.executor08.log"]
TABLES = {"sources": "SELECT path, format, role, content_sha256, size_bytes, row_count, warnings FROM sources",
          "nodes": "SELECT * EXCLUDE (run_id) FROM nodes ORDER BY node_index",
          "samples": "SELECT * EXCLUDE (run_id) FROM node_samples ORDER BY node_index, sample_index",
          "ir_calls": "SELECT * EXCLUDE (source_id) FROM ir_calls ORDER BY call_index",
          "workloads": "SELECT * FROM workloads ORDER BY workload_key"}


def stored(db: Path) -> dict[str, list]:
    return stored_rows(db, TABLES)


def ingest_both(tmp_path: Path, monkeypatch, path: Path, spill_streamed: bool = False) -> tuple[dict, dict]:
    """What the file stores read whole, and streamed (`spill_streamed`: a debug table's
    nodes and samples beyond 10 spilled to a file, only when streamed)."""
    monkeypatch.setattr(rows.ArrowRows, "CHUNK", 7)
    monkeypatch.setattr(rows.Samples, "CHUNK", 5)
    monkeypatch.setattr(rows.IrCallList, "SPILL_BYTES", 1)  # every chunk goes to a Parquet file
    out = []
    for streamed in (False, True):
        if streamed:
            monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
            if spill_streamed:
                monkeypatch.setattr(DebugTable, "SPILL_BYTES", 1)
                monkeypatch.setattr(rows.SampleList, "SPILL_BYTES", 1)
        assert (Source.read(path).streamed_size is not None) == streamed
        db = tmp_path / f"{streamed}.duckdb"
        Hotdb(db).ingest([path], model="m")
        out.append(stored(db))
    return out[0], out[1]


def relay_text() -> str:
    return example_files("vgg16")[1].read_text()


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_a_streamed_debug_log_stores_what_it_stores_read_whole(tmp_path, monkeypatch, log):
    path = tmp_path / log.name
    # chatter around the lines (amid them, a text under 16 MiB is a paste of several runs)
    path.write_text("not a kernel line\n" + log.read_text() + "\n\nnot one either")
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed
    assert len(whole["samples"]) == 3 * len(whole["nodes"]) > 0 and "were skipped" in whole["sources"][0][6][0]


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_samples_spilled_to_a_file_store_what_they_store_held(tmp_path, monkeypatch, log):
    """rows.Samples beyond SPILL_AFTER go to a file a node's part at a time: the same
    samples, in the same order, and the same node means (summed in the order read)."""
    monkeypatch.setattr(rows.Samples, "CHUNK", 5)
    out = []
    for spill_after in (2**30, 11):
        monkeypatch.setattr(rows.Samples, "SPILL_AFTER", spill_after)
        db = tmp_path / f"{spill_after}.duckdb"
        Hotdb(db).ingest([log], model="m")
        out.append(stored(db))
    assert out[0] == out[1] and len(out[0]["samples"]) > 11


def test_a_streamed_relay_text_stores_what_it_stores_read_whole(tmp_path, monkeypatch):
    path = tmp_path / "vgg16.relay.txt"
    path.write_text("A sentence before the IR.\n" + relay_text() + "\r\nand one after it.")  # \r\n, no last newline
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed
    assert len(whole["ir_calls"]) > 7 and whole["workloads"]  # more than one chunk of calls


def test_a_streamed_text_of_several_modules_keeps_the_last_complete_one(tmp_path, monkeypatch):
    text = relay_text()
    cut = text[: text.rindex("\n", 0, text.index("nn.dense"))]  # a module cut off, two whole ones, a cut one
    path = tmp_path / "modules.relay.txt"
    path.write_text(cut + "\n" + text + text.replace("nn.relu", "nn.sigmoid") + cut)
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed
    assert any(call[3] == "nn.sigmoid" for call in streamed["ir_calls"])
    assert "modules are printed one after the other" in " ".join(streamed["sources"][0][6])


def table_and_module_files() -> list[Path]:
    """Every debug table and Relax module of tests/data and ../shared/real (where it lies)."""
    found = []
    for folder in ("debug-table", "relax"):
        for root in (DATA, REAL):
            found += sorted(p for p in (root / folder).rglob("*") if p.is_file() and p.suffix in (".txt", ".py"))
    return found


@pytest.mark.parametrize("path", table_and_module_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_streamed_table_or_module_stores_what_it_stores_read_whole(tmp_path, monkeypatch, path):
    """Streamed, a debug table's nodes and samples spilled beyond 10 rows too."""
    whole, streamed = ingest_both(tmp_path, monkeypatch, path, spill_streamed=True)
    assert whole == streamed
    assert whole["nodes"] or whole["ir_calls"]


def test_shared_real_tables_and_modules_are_there():
    if not REAL.is_dir():
        pytest.skip(f"real artifacts not found in {REAL} (set HOTDB_REAL to the shared/real folder)")
    assert any(p.parent.parent == REAL for p in table_and_module_files())


def test_a_spilled_table_counts_a_name_printed_again_as_its_next_output(tmp_path, monkeypatch):
    """A node's outputs are printed one after the other; a name that comes again later is
    its next output too (held, counted as read; spilled, counted again from the file)."""
    rows_text = "".join(f"n{i % 13}  fused_nn_relu_{i % 5}  {1 + i}.5  1.0  (1, {i})  1  1  [{1 + i}.5, 2.0]\n"
                        for i in range(40))
    path = tmp_path / "again.txt"
    path.write_text("Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs  Measurements(us)\n"
                    "---------  ---  --------  -------  -----  ------  -------  ----------------\n"
                    + rows_text + "Total_time  -  500.0  -  -  -  -  -\n")
    whole, streamed = ingest_both(tmp_path, monkeypatch, path, spill_streamed=True)
    assert whole == streamed
    assert len(whole["samples"]) == 80 and "differs from the sum of rows" in whole["sources"][0][6][0]


def test_a_streamed_relax_text_of_two_modules_keeps_the_last(tmp_path, monkeypatch):
    text = (DATA / "relax" / "small_convnet.relax.py").read_text()
    path = tmp_path / "two.relax.py"
    path.write_text(text + "\n" + text.replace("R.nn.relu", "R.sigmoid"))
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed
    assert any(call[3] == "sigmoid" for call in streamed["ir_calls"])
    assert "modules are printed one after the other" in " ".join(streamed["sources"][0][6])


@pytest.mark.parametrize("kind", ["debug-log", "relay"])
def test_a_streamed_file_cut_mid_line_reads_as_it_does_whole(tmp_path, monkeypatch, kind):
    text = LOGS[1].read_text() if kind == "debug-log" else relay_text()
    middle = text.rindex("us/iter" if kind == "debug-log" else "nn.conv2d(") + 4
    path = tmp_path / f"cut.{kind}.txt"
    path.write_bytes(text[:middle].encode())
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed and streamed["sources"][0][6]  # said: skipped, or cut off


def deep_file(tmp_path: Path, kind: str, bad: str, at: int) -> Path:
    """A file whose line `at` is `bad`, after `at - 1` good lines."""
    if kind == "debug-log":
        good = ["Op #0 fused_nn_conv2d_add_relu: 12.5 us/iter"] * (at - 1)
    elif kind == "debug-table":
        good = ["Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs"] + [
            f"n{i}  fused_nn_relu  1.5  0.1  (1, 8)  1  1" for i in range(at - 2)]
    elif kind == "relax":
        good = ["@R.function", "def main(x: R.Tensor((1, 8), dtype=\"float32\")):"] + [
            f"    lv{i}: R.Tensor((1, 8), dtype=\"float32\") = R.nn.relu(x)" for i in range(at - 3)]
    else:
        good = ["def @main(%data: Tensor[(1, 8), float32]) {"] + ["  %0 = nn.relu(%data) /* ty=Tensor[(1, 8), float32] */;"] * (at - 2)
    path = tmp_path / f"deep.{kind}.txt"
    path.write_text("\n".join(good + [bad, "}"]) + "\n")
    return path


@pytest.mark.parametrize("kind, bad, said", [
    ("debug-log", "Op #0 fused_nn_conv2d_add_relu: 1e999 us/iter", "expected a finite time"),
    ("debug-log", "Op #0 fused_nn_dense_add: 3.5 us/iter", "the log mixes two models"),
    ("relay", "  %1 = nn.relu(%0 /* ty=Tensor[(1, 8), float32] */;", "column"),
    ("debug-table", "n  fused_nn_relu  x1.5  0.1  (1, 8)  1  1", "expected a number"),
    ("debug-table", "n  fused_nn_relu  1.5  0.1  (1, 8)  1", "expected 7 columns"),
    ("relax", "    lv: R.Tensor((1, 8), dtype=\"float32\") = R.nn.relu(x, (", "column"),
])
def test_a_bad_line_deep_in_a_streamed_file_is_named(tmp_path, monkeypatch, kind, bad, said):
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
    path = deep_file(tmp_path, kind, bad, at=20_000)
    with pytest.raises(ParseError) as caught:
        Hotdb(tmp_path / "db.duckdb").ingest([path], model="m")
    assert caught.value.line == 20_000 and said in caught.value.message and caught.value.path == str(path)
    assert not (tmp_path / "db.duckdb").exists() or not stored(tmp_path / "db.duckdb")["sources"]


def test_a_streamed_line_too_long_is_refused_before_it_is_held(tmp_path, monkeypatch):
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
    monkeypatch.setenv("HOTDB_MAX_LINE_BYTES", "1024")
    path = tmp_path / "long.log"
    path.write_text("Op #0 fused_nn_conv2d: 1.5 us/iter\n" * 3 + "x" * 5_000_000)
    with pytest.raises(ParseError) as caught:
        Hotdb(tmp_path / "db.duckdb").ingest([path], model="m")
    assert caught.value.line == 4 and "HOTDB_MAX_LINE_BYTES" in caught.value.message


def test_streamed_bytes_that_are_not_text_are_named(tmp_path, monkeypatch):
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
    path = tmp_path / "binary.log"
    path.write_bytes(b"Op #0 fused_nn_conv2d: 1.5 us/iter\n" * 3 + b"Op #0 \xff\xfe\n")
    with pytest.raises(ParseError) as caught:
        Hotdb(tmp_path / "db.duckdb").ingest([path], model="m")
    assert caught.value.line == 4 and "not utf-8 text" in caught.value.message


# -- lines.stream_lines: the lines of str.splitlines(), wherever the chunks are cut ---------

PIECES = st.sampled_from(["a", "Op #1", " ", "\n", "\r\n", "\r", "\n\n", "é", "€", "\u2028", "\x0c", "\t"])


@settings(max_examples=300, deadline=None)
@given(text=st.lists(PIECES, max_size=40).map("".join), cuts=st.lists(st.integers(0, 200), max_size=8),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_streamed_lines_are_the_lines_of_the_whole_text(text, cuts, encoding):
    data = text.encode(encoding)
    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    chunks = [data[a:b] for a, b in zip(bounds, bounds[1:])]

    def error(line, message):
        return AssertionError(f"line {line}: {message}")

    got = list(stream_lines(chunks, encoding_of(data), 10**6, error))
    assert got == list(enumerate(text.splitlines(), start=1))


def test_a_call_of_a_byoc_function_defined_after_it_has_its_compiler(tmp_path, monkeypatch):
    ty = "/* ty=Tensor[(1, 8), float32] */"
    path = tmp_path / "byoc.relay.txt"
    path.write_text("def @main(%x: Tensor[(1, 8), float32]) {\n"
                    + "".join(f"  %{i} = nn.relu(%x) {ty};\n" for i in range(30))
                    + f"  @tvmgen_default_cutlass_main_0(%29) {ty}\n}}\n\n"
                    "def @tvmgen_default_cutlass_main_0(%y: Tensor[(1, 8), float32], Compiler=\"cutlass\") {\n"
                    f"  nn.relu(%y) {ty}\n}}\n")
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed
    assert [(call[3], call[-3]) for call in streamed["ir_calls"] if call[-3]] == [
        ("@tvmgen_default_cutlass_main_0", "cutlass"), ("nn.relu", "cutlass")]


def test_a_streamed_insert_sets_duckdbs_pool_and_threads_back(tmp_path, monkeypatch):
    """The loader inserts a stream of rows with DuckDB's buffer pool lowered (the blocks it
    writes would stay cached there, memory growing with the rows) and one thread: both are
    what they were once the rows are stored."""
    from hotdb.ingest import pipeline
    from hotdb.store.connection import Store
    from hotdb.store.loader import load

    monkeypatch.setattr(rows.ArrowRows, "CHUNK", 7)
    monkeypatch.setattr(rows.IrCallList, "SPILL_BYTES", 1)
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
    monkeypatch.setenv("HOTDB_MEMORY_LIMIT", "200MiB")
    path = tmp_path / "vgg16.relay.txt"
    path.write_text(relay_text())
    items = [(item.source, item.format, item.parsed) for item in pipeline.read([path], None)]
    settings = "SELECT current_setting('memory_limit'), current_setting('threads')"
    with Store(tmp_path / "db.duckdb") as store:
        store.con.execute("SET threads = 3")
        before = store.con.execute(settings).fetchall()
        load(store, "m", items)
        assert store.con.execute(settings).fetchall() == before == [("200.0 MiB", 3)]
        assert store.con.execute("SELECT count(*) FROM ir_calls").fetchall()[0][0] == len(items[0][2].ir_calls) > 10


def _tables_between_prose(tmp_path: Path) -> Path:
    text = example_files("vgg16")[0].read_text()
    runs = [re.sub(r"\d+\.\d+", lambda m: str(float(m.group()) + k), text, count=1) for k in range(3)]  # three runs' times
    path = tmp_path / "runs.txt"
    path.write_text("run 1 of 3\n" + runs[0] + "\nrun 2\n\n" + runs[1] + "run 3, no table\n" + runs[2] + "done.\n")
    return path


def test_a_streamed_file_of_several_tables_stores_a_run_each_as_read_whole(tmp_path, monkeypatch):
    """Read whole, a text of three tables is a paste cut into three runs; streamed, the
    same three blocks (hashes, sizes, the note on the lines between them), read in turn
    from one stream of lines, and spilled beyond 10 rows."""
    whole, streamed = ingest_both(tmp_path, monkeypatch, _tables_between_prose(tmp_path), spill_streamed=True)
    assert whole == streamed
    assert len(whole["sources"]) == 3 and len({s[3] for s in whole["sources"]}) == 3  # three runs
    assert "lines between them are not part of any" in whole["sources"][0][6][0]


def test_a_held_text_too_large_for_a_paste_is_cut_into_its_tables(tmp_path, monkeypatch):
    from hotdb.ingest.paste import blocks

    path = _tables_between_prose(tmp_path)
    db = tmp_path / "paste.duckdb"
    Hotdb(db).ingest([path], model="m")
    monkeypatch.setattr(blocks, "MAX_PASTE_BYTES", 100)  # held whole, but no paste: cut by split_repeated
    db2 = tmp_path / "large.duckdb"
    Hotdb(db2).ingest([path], model="m")
    assert stored(db) == stored(db2)
