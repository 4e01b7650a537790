"""Real artifacts, as other people printed them, held to tests/real_corpus.json.

The files lie in ../shared/real/ (TVM's docs of every version, tophub, TLCBench, users'
repositories; its PROVENANCE.md says where each comes from) and are read there, never
copied. Each is ingested the way a user would: by auto-detection, through the CLI.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest
from helpers import REAL, ROOT, real

MANIFEST = json.loads((ROOT / "tests" / "real_corpus.json").read_text())["files"]
ANCHORS = "('nn.conv2d', 'nn.dense', 'nn.batch_matmul')"


def _all_real_files() -> list[str]:
    if not REAL.is_dir():
        return []
    return sorted(str(p.relative_to(REAL)) for p in REAL.rglob("*") if p.is_file() and p.name not in ("PROVENANCE.md", "SOURCES.md"))


def _counts(db: Path) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        one = lambda sql: con.execute(sql).fetchall()[0][0]  # noqa: E731
        return {
            "format": sorted({r[0] for r in con.execute("SELECT format FROM sources").fetchall()}),
            "nodes": one("SELECT count(*) FROM nodes"),
            "ir_calls": one("SELECT count(*) FROM ir_calls"),
            "anchor_calls": one(f"SELECT count(*) FROM ir_calls WHERE op_name IN {ANCHORS}"),
            "anchor_workloads": one(f"SELECT count(*) FROM ir_calls WHERE op_name IN {ANCHORS} AND workload_key IS NOT NULL"),
            "tasks": one("SELECT count(*) FROM model_tasks"),
            "task_workloads": one("SELECT count(*) FROM model_tasks WHERE workload_key IS NOT NULL"),
            "records": one("SELECT count(*) FROM tuning_records"),
            "kernel_families": [r[0] for r in con.execute(
                "SELECT DISTINCT kernel_family FROM nodes WHERE kernel_family IS NOT NULL ORDER BY 1").fetchall()],
        }
    finally:
        con.close()


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_real_file_gives_what_the_manifest_says(cli, db, name):
    path = real(name)
    expected = MANIFEST[name]
    result = cli("ingest", path, "--model", "m")
    assert "Traceback" not in result.err
    if "refused" in expected:
        assert result.code == 1, result.out
        assert expected["refused"] in result.err and str(path) in result.err, result.err
        assert result.err.count("\n") == 1, result.err  # one line: file, where, what is missing
        return
    assert result.code == 0, result.err
    counts = _counts(db)
    formats = expected["format"] if isinstance(expected["format"], list) else [expected["format"]]
    assert counts["format"] == formats
    for key in ("nodes", "ir_calls", "anchor_calls", "anchor_workloads", "tasks", "task_workloads", "records"):
        assert counts[key] == expected.get(key, 0), (key, counts)
    assert counts["kernel_families"] == expected.get("kernel_families", [])


def test_every_real_file_ingests_or_is_refused_cleanly(cli, db, tmp_path):
    """Files that appear in ../shared/real/ before the manifest lists them still must not crash."""
    unlisted = [n for n in _all_real_files() if n not in MANIFEST]
    for n, name in enumerate(unlisted):
        result = cli("--db", tmp_path / f"u{n}.duckdb", "ingest", REAL / name, "--model", "m", use_db=False)
        assert result.code in (0, 1) and "Traceback" not in result.err, (name, result.err)
        if result.code == 1:
            assert result.err.startswith("error: ") and result.err.count("\n") == 1, (name, result.err)


def test_the_corpus_has_every_kind_of_artifact():
    kinds = {name.split("/")[0] for name in MANIFEST}
    assert {"debug-table", "profile-report", "relay", "relax", "autotvm-tasks", "autotvm-log", "ansor-log",
            "graph-json", "tophub", "ms-database", "ms-tuning-log", "vm-stat", "pastes"} <= kinds


def test_the_manifest_names_only_what_the_corpus_holds():
    """Where the corpus is beside this checkout, every entry is there: a file renamed or
    lost fails here (and in its own test), never skips."""
    if not REAL.is_dir():
        pytest.skip(f"the real corpus is not at {REAL} (set HOTDB_REAL)")
    assert [name for name in MANIFEST if not (REAL / name).exists()] == []


def test_relay_files_give_nine_in_ten_convolutions_and_dense_layers_a_workload():
    """Whole Relay files; a pasted fragment without types or inputs (pastes/) may hold no
    shape to infer, and its counts are held exactly by the manifest."""
    for name, expected in MANIFEST.items():
        if name.startswith("relay/") and expected.get("anchor_calls"):
            assert expected["anchor_workloads"] >= 0.9 * expected["anchor_calls"], name


def test_untyped_relay_gets_the_shapes_typed_relay_states(tmp_path):
    """Collage's untyped ResNet-50 (weights as meta constants, no annotations) gives the
    workloads that the same network states when typed: its first convolution, 7x7/2."""
    from hotdb.ingest import get
    from hotdb.ingest.source import Source

    parsed = get("relay").parse(Source.read(real("relay/collage_menangerie_resnet50_untyped.txt")))
    convs = [c for c in parsed.ir_calls if c.op_name == "nn.conv2d"]
    assert convs[0].workload_key == "conv2d float32 d=1x3x224x224 w=64x3x7x7 s=2x2 p=3,3,3,3 dl=1x1 g=1"
    assert parsed.ir_calls[-1].result_shapes == [[1, 1000]]
    assert any("calls have no type annotation" in w for w in parsed.warnings)
    gpt2 = get("relay").parse(Source.read(real("relay/collage_menangerie_gpt2_untyped.txt")))
    missing = [c for c in gpt2.ir_calls if c.op_name == "nn.dense" and c.workload_key is None]
    # the one dense layer whose input comes from an untyped embedding table is said, not hidden
    assert len(missing) == 1 and any("1 of 72" in w and f"line {missing[0].line_no}" in w for w in gpt2.warnings)


def test_relax_reports_have_no_family_ending_in_a_digit(cli, db):
    for name, expected in MANIFEST.items():
        for family in expected.get("kernel_families", []):
            assert not re.search(r"\d$", family), (name, family)
    cli("ingest", real("profile-report/relax_vm_hexagon_pr14053.txt"), "--model", "m")
    families = dict(duckdb.connect(str(db), read_only=True).execute(
        "SELECT func_name, kernel_family FROM nodes").fetchall())
    assert families["conv2d1"] == "conv2d" and families["relu1"] == "relu"


def test_report_share_is_against_the_device_total(cli, db):
    cli("ingest", real("profile-report/report_json_docstring_example_tvm012.json"), "--model", "m")
    nodes = {r["node"]: r for r in cli("top", "--by", "node", "-f", "json").json()}
    assert round(nodes["fused_dense"]["share_pct"], 1) == 3.7  # 12.3 us of 334.2 us


def test_multi_output_nodes_are_counted_once(cli, db):
    result = cli("ingest", real("debug-table/arachne_trt_ssd_mobilenet_xaviernx.txt"), "--model", "m")
    assert result.code == 0 and "trimmed" not in result.err and "differs" not in result.err
    runs = cli("sql", "SELECT total_time_us FROM run_totals", "-f", "json").json()
    assert abs(runs[0]["total_time_us"] - 9373.938) < 0.01  # the table's own Total_time


def test_counter_only_report_names_what_is_missing(cli, db):
    result = cli("ingest", real("profile-report/papi_perf_counters_table_tvmdoc012.txt"), "--model", "m")
    assert result.code == 1 and "Duration (us)" in result.err and "perf::CYCLES" in result.err
