"""AutoTVM and auto_scheduler logs, task printouts and fallback warnings read as a stream
of lines (`Source.iter_lines`): a file larger than HOTDB_STREAM_BYTES stores exactly the
tasks, records, workloads and warnings it stores read whole, and a bad line is named on
its line. Streaming is forced on small files with HOTDB_STREAM_BYTES=0, and the records'
Arrow chunks (rows.RecordList) made small and spilled, so that records cross them.

The real files are read where ../shared/real holds them (HOTDB_REAL), never copied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import DATA, REAL, ROOT, stored_rows

from hotdb import rows
from hotdb.api import Hotdb
from hotdb.errors import ParseError
from hotdb.examples import example_files
from hotdb.ingest.source import Source

REAL_FOLDERS = ("autotvm-log", "ansor-log", "autotvm-tasks", "tophub")
# read whole, these are cut as pastes or unrendered (hotdb/ingest/pipeline.py), which a streamed file never is
PASTES = {"vgg16_ansor_run_together.txt", "vgg16_autotvm_tvm06_run_together.txt"}
TABLES = {"sources": "SELECT path, format, role, content_sha256, size_bytes, row_count, warnings FROM sources",
          "tasks": "SELECT * EXCLUDE (source_id) FROM tasks ORDER BY task_index",
          "records": "SELECT * EXCLUDE (source_id) FROM tuning_records ORDER BY line_no",
          "workloads": "SELECT * FROM workloads ORDER BY workload_key"}


def stored(db: Path) -> dict[str, list]:
    return stored_rows(db, TABLES)


def ingest_both(tmp_path: Path, monkeypatch, path: Path) -> tuple[dict, dict]:
    """What the file stores read whole, and streamed."""
    monkeypatch.setattr(rows.RecordList, "CHUNK", 7)
    monkeypatch.setattr(rows.RecordList, "SPILL_BYTES", 2048)  # a few chunks held, then a Parquet file
    out = []
    for streamed in (False, True):
        if streamed:
            monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
        assert (Source.read(path).streamed_size is not None) == streamed
        db = tmp_path / f"{streamed}.duckdb"
        Hotdb(db).ingest([path], model="m")
        out.append(stored(db))
    return out[0], out[1]


def _real_files() -> list[Path]:
    return sorted(p for folder in REAL_FOLDERS if (REAL / folder).is_dir() for p in (REAL / folder).iterdir()
                  if p.is_file())


def _data_files() -> list[Path]:
    made = sorted(p for p in (DATA / "ansor-fallback" / "made").iterdir() if p.name not in PASTES)
    return [DATA / "autotvm-tasks" / "listing.txt", DATA / "ansor-tasks" / "small_nhwc.txt",
            *example_files("vgg16")[2:4], *made]


@pytest.mark.parametrize("path", _data_files(), ids=lambda p: p.name)
def test_a_streamed_file_of_tests_data_stores_what_it_stores_read_whole(tmp_path, monkeypatch, path):
    whole, streamed = ingest_both(tmp_path, monkeypatch, path)
    assert whole == streamed and whole["tasks"]


def test_real_files_store_the_same_rows_whole_and_streamed(tmp_path, monkeypatch):
    """Every real file, whole and streamed; those the manifest says are refused are refused
    both ways, on the same line and for the same reason, and every other is compared."""
    files = _real_files()
    if not files:
        pytest.skip(f"no real tuning logs or task printouts in {REAL} (set HOTDB_REAL to the shared/real folder)")
    manifest = json.loads((ROOT / "tests" / "real_corpus.json").read_text())["files"]
    compared, refused = [], []
    for n, path in enumerate(files):
        folder = tmp_path / str(n)
        folder.mkdir()
        expected = manifest.get(str(path.relative_to(REAL)), {})
        with monkeypatch.context() as patched:
            try:
                whole, streamed = ingest_both(folder, patched, path)
            except ParseError as exc:
                assert expected.get("refused", "\0") in exc.message, (path.name, exc.message)
                patched.setenv("HOTDB_STREAM_BYTES", "0")
                with pytest.raises(ParseError) as caught:
                    Hotdb(folder / "again.duckdb").ingest([path], model="m")
                assert (caught.value.line, caught.value.message) == (exc.line, exc.message), path.name
                refused.append(path)
                continue
        assert whole == streamed, path.name
        assert "refused" not in expected, path.name
        compared.append(path)
    assert len(compared) + len(refused) == len(files) and compared


def test_a_log_of_many_records_spilled_to_files_stores_them_in_order(tmp_path, monkeypatch):
    """Records appended after a read (`frames`) begin another file: all come back in order."""
    monkeypatch.setattr(rows.RecordList, "CHUNK", 3)
    monkeypatch.setattr(rows.RecordList, "SPILL_BYTES", 1)
    source = Source.read(example_files("vgg16")[3])
    records = rows.RecordList(source)
    made = [rows.TuningRecordRow(line_no=i, task_index=0, config_index=i, costs_s=[1e-3 * i], error_no=0, all_cost_s=1.0,
                                 timestamp=2.0, target="llvm", tvm_version="0.8", raw_line=f"line {i}") for i in range(1, 12)]
    records.extend(made[:5])
    assert [r.line_no for r in records] == [1, 2, 3, 4, 5]
    records.extend(made[5:])
    assert list(records) == made and len(records) == 11 and records[-1] == made[-1]
    assert sum(frame.num_rows for frame in records.frames()) == 11


def test_record_schema_is_the_tuning_records_types(tmp_path):
    from hotdb.store.connection import Store

    store = Store(tmp_path / "db.duckdb")
    try:
        declared = {f.name: f.type for f in store.con.sql("SELECT * FROM tuning_records LIMIT 0").to_arrow_table().schema
                    if f.name != "source_id"}
    finally:
        store.close()
    assert {f.name: f.type for f in rows.record_schema()} == declared


def _deep(tmp_path: Path, kind: str, at: int) -> Path:
    """A file whose line `at` is bad, after `at - 1` good lines."""
    log = example_files("vgg16")[3].read_text().splitlines()
    if kind == "autotvm-log":
        lines = [log[i % len(log)] for i in range(at - 1)] + ['{"input": ["llvm", "conv2d_NCHWc.x86", [], {}], "result"']
    elif kind == "ansor-log":
        good = ('{"i": [["[\\"conv2d_layer\\", 1, 7, 7, 512, 512, 3, 3, [1, 1], [1, 1]]", "llvm -keys=cpu"], [[], []]], '
                '"r": [[0.001], 0, 1.0, 1675066859], "v": "v0.6"}')
        lines = [good] * (at - 1) + ['{"i": [["not a key", "llvm"], [[], []]], "r": [[0.001], 0, 1.0, 0]}']
    else:
        task = '========== Task 0  (workload key: ["8654f16aeddf785bad9f028164b3a48d", [1, 56, 56, 64]]) =========='
        lines = [task, "placeholder = PLACEHOLDER [1, 56, 56, 64]"] * ((at - 1) // 2) + ["x"] * ((at - 1) % 2)
        lines.append("========== Task 1  (workload key: [\"8654f16aeddf785bad9f028164b3a48d\", [1, 56,]]) ==========")
    path = tmp_path / f"deep.{kind}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("kind, said", [("autotvm-log", "expected one JSON tuning record per line"),
                                        ("ansor-log", "expected the workload key to be a JSON list string"),
                                        ("ansor-tasks", "expected the workload key as a JSON list")])
def test_a_bad_line_deep_in_a_streamed_log_is_named(tmp_path, monkeypatch, kind, said):
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "0")
    path = _deep(tmp_path, kind, at=20_001)
    with pytest.raises(ParseError) as caught:
        Hotdb(tmp_path / "db.duckdb").ingest([path], model="m")
    assert caught.value.line == 20_001 and said in caught.value.message and caught.value.path == str(path)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "db.duckdb").exists() or not stored(tmp_path / "db.duckdb")["sources"]
