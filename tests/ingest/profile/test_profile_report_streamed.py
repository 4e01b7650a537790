"""Large profiles, canonicalised once per signature: a CSV read by DuckDB (hotdb/ingest/profile/report/streamed_csv.py),
a JSON decoded call by call (hotdb/ingest/profile/report/streamed_json.py).

Every test lowers the streaming threshold so that small files take the large-file path,
and holds it to the row-by-row reader: the same nodes, the same matches, the same errors.
"""

from __future__ import annotations

import csv
import io
import json

import duckdb
import pytest
from helpers import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotdb.api import Hotdb
from hotdb.errors import ParseError
from hotdb.ingest import source as sources

REPORTS = DATA / "profile-report"
BAD = DATA / "bad"


def stored(db) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            "nodes": con.execute("SELECT * EXCLUDE (run_id) FROM nodes ORDER BY node_index").fetchall(),
            "runs": con.execute("SELECT device, profile_variant, target FROM runs").fetchall(),
            # stored once per distinct signature, numbered by first call, by either reader
            "signatures": con.execute("SELECT * EXCLUDE (run_id) FROM node_signatures ORDER BY signature_id").fetchall(),
            "matches": con.execute("SELECT * EXCLUDE (run_id, computed_at, time_us), round(time_us, 3) "  # sums in any order
                                  "FROM kernel_match_results ORDER BY ALL").fetchall(),
        }
    finally:
        con.close()


def ingest_both(tmp_path, monkeypatch, files, name="m"):
    """(row by row, streamed): what each stored, in fresh databases."""
    out = []
    for threshold, tag in ((1 << 40, "rows"), (1, "streamed")):
        monkeypatch.setenv("HOTDB_STREAM_BYTES", str(threshold))
        db = tmp_path / f"{name}-{tag}.duckdb"
        Hotdb(db).ingest(files, model=name)
        out.append(stored(db))
    return out


@pytest.mark.parametrize("report", ["resnet50_nhwc.report.csv", "resnet50_nhwc.report.json"])
def test_streamed_report_stores_what_the_row_reader_stores(tmp_path, monkeypatch, report):
    files = [REPORTS / report, DATA.parent.parent / "shared" / "formats" / "samples"
             / "ansor_cilog_resnet-50-NHWC-B1-llvm.json"]
    files = [f for f in files if f.exists()]
    rows, streamed = ingest_both(tmp_path, monkeypatch, files)
    assert streamed["nodes"] == rows["nodes"]
    assert len(rows["nodes"]) == 15
    assert streamed["signatures"] == rows["signatures"]
    assert len({(n[3], repr(n[7]), repr(n[9])) for n in rows["nodes"]}) == len(rows["signatures"]) < 15  # (kernel, shapes)
    assert streamed["runs"] == rows["runs"]
    assert streamed["matches"] == rows["matches"]


def test_streamed_report_source_is_not_held_in_memory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOTDB_STREAM_BYTES", str(1000))
    source = sources.Source.read(REPORTS / "resnet50_nhwc.report.json")
    assert source.streamed_size == (REPORTS / "resnet50_nhwc.report.json").stat().st_size
    assert len(source.data) <= sources.SNIFF_BYTES
    import hashlib
    assert source.sha256 == hashlib.sha256((REPORTS / "resnet50_nhwc.report.json").read_bytes()).hexdigest()


@pytest.mark.parametrize("bad", ["report_csv_bad_duration.csv", "report_csv_short_row.csv", "report_csv_bad_shapes.csv",
                                 "report_csv_count_too_large.csv", "report_csv_dim_too_large.csv", "report_truncated.json", "report_no_calls.json", "report_call_without_duration.json"])
def test_streamed_bad_report_is_a_clear_error_at_the_same_line(monkeypatch, bad):
    def error(threshold):
        monkeypatch.setenv("HOTDB_STREAM_BYTES", str(threshold))
        from hotdb.ingest.pipeline import read
        with pytest.raises(ParseError) as caught:
            read([BAD / bad], None)
        return caught.value

    rows, streamed = error(1 << 40), error(1)
    assert streamed.path == rows.path
    assert streamed.line == rows.line
    assert str(streamed) == str(rows)


def test_streamed_unstorable_report_is_the_same_error(tmp_path, monkeypatch):
    """A value no column holds, found only when stored (a logical shape), in both readers."""
    errors = []
    for threshold in (1 << 40, 1):
        monkeypatch.setenv("HOTDB_STREAM_BYTES", str(threshold))
        with pytest.raises(ParseError) as caught:
            Hotdb(tmp_path / f"{threshold}.duckdb").ingest([BAD / "report_csv_logical_too_large.csv"], model="m")
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and ":2 [out_shape_logical]" in errors[0]


# the fixture's calls, to draw reports from
FIXTURE_CALLS = list(csv.DictReader(io.StringIO((REPORTS / "resnet50_nhwc.report.csv").read_text())))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.tuples(st.integers(0, len(FIXTURE_CALLS) - 1),
                                st.floats(0, 1e6, allow_nan=False, allow_infinity=False),
                                st.integers(1, 5)), min_size=1, max_size=60),
       as_json=st.booleans())
def test_any_report_streams_to_the_same_nodes(tmp_path_factory, monkeypatch, picks, as_json):
    tmp = tmp_path_factory.mktemp("report")
    calls = []
    for index, time_us, count in picks:
        call = dict(FIXTURE_CALLS[index])
        call["Duration (us)"], call["Count"] = repr(time_us), str(count)
        calls.append(call)
    path = tmp / ("r.json" if as_json else "r.csv")
    if as_json:
        typed = {"Duration (us)": "microseconds", "Count": "count", "Percent": "percent"}
        path.write_text(json.dumps({"calls": [
            {k: {typed.get(k, "string"): float(v) if k in ("Duration (us)", "Percent") else int(v) if k == "Count" else v}
             for k, v in call.items() if v != "" or k not in typed} for call in calls], "device_metrics": {}}))
    else:
        with path.open("w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(FIXTURE_CALLS[0]), quoting=csv.QUOTE_NONNUMERIC)
            writer.writeheader()
            writer.writerows(calls)
    rows, streamed = ingest_both(tmp, monkeypatch, [path])
    assert streamed["nodes"] == rows["nodes"]
    assert streamed["signatures"] == rows["signatures"]
    per_call = ("Duration (us)", "Count", "Percent", "Device")
    picked = {tuple(v for k, v in FIXTURE_CALLS[index].items() if k not in per_call) for index, _, _ in picks}
    assert len(rows["signatures"]) == len(picked)  # one per distinct kernel, shapes and layouts
    assert streamed["matches"] == rows["matches"]


def test_streamed_report_shares_against_the_device_total(tmp_path, monkeypatch):
    """Report.json()'s device total: the time beyond the calls is one node in both readers."""
    path = tmp_path / "totals.json"
    path.write_text(json.dumps({"calls": [{"Name": {"string": "fused_dense"}, "Duration (us)": {"microseconds": 12.3},
                                           "Count": {"count": 1}, "Device": {"string": "cpu0"}}],
                                "device_metrics": {"cpu0": {"Duration (us)": {"microseconds": 334.2}}}}))
    rows, streamed = ingest_both(tmp_path, monkeypatch, [path])
    assert streamed["nodes"] == rows["nodes"] and len(rows["nodes"]) == 2
    assert streamed["runs"] == rows["runs"]


def test_a_streamed_file_of_several_report_objects_keeps_every_call(tmp_path, monkeypatch):
    """Reports appended to one file, one JSON object a line, calls of different columns:
    the streamed reader merges their structures and keeps every call, in file order."""
    call = {"Name": {"string": "fused_dense"}, "Duration (us)": {"microseconds": 12.5}, "Count": {"count": 1}}
    other = {**call, "Name": {"string": "fused_conv2d"}, "Argument Shapes": {"string": "float32[1, 3, 224, 224]"}}
    path = tmp_path / "appended.json"
    path.write_text(json.dumps({"calls": [call, call]}) + "\n" + json.dumps({"calls": [other]}) + "\n")
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "1")
    db = tmp_path / "db.duckdb"
    Hotdb(db).ingest([path], model="m")
    nodes = Hotdb(db).sql("SELECT func_name, time_us FROM nodes ORDER BY node_index").rows
    assert nodes == [("fused_dense", 12.5), ("fused_dense", 12.5), ("fused_conv2d", 12.5)]


def test_a_streamed_file_of_several_report_objects_counts_the_first_device_total(tmp_path, monkeypatch):
    """Appended reports, whatever the space between them: every call, the first's totals."""
    call = {"Name": {"string": "fused_dense"}, "Duration (us)": {"microseconds": 12.5}, "Device": {"string": "cpu0"}}
    first = {"calls": [call], "device_metrics": {"cpu0": {"Duration (us)": {"microseconds": 100.0}}}}
    second = {"device_metrics": {"cpu0": {"Duration (us)": {"microseconds": 900.0}}}, "calls": [call, call]}
    path = tmp_path / "appended.json"
    path.write_text(json.dumps(first, indent=2) + json.dumps(second) + "\r\n\t{}\n")
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "1")
    monkeypatch.setattr(sources, "MiB_CHUNK", 5)  # chunks that cut every value
    db = tmp_path / "db.duckdb"
    Hotdb(db).ingest([path], model="m")
    nodes = Hotdb(db).sql("SELECT func_name, time_us, device FROM nodes ORDER BY node_index").rows
    assert nodes == [("fused_dense", 12.5, "cpu0")] * 3 + [("(rest of cpu0 total)", 62.5, "cpu0")]


@pytest.mark.parametrize("layout", ["compact", "indented", "bom"])
def test_streamed_json_in_small_chunks_stores_what_the_row_reader_stores(tmp_path, monkeypatch, layout):
    """Chunks of a few bytes cut every value, number and escape: the same rows."""
    report = json.loads((REPORTS / "resnet50_nhwc.report.json").read_text())
    report["calls"][0]["Name"] = {"string": "tvmgen_\u00e9\\\"quoted\""}  # escapes and a non-ASCII character cut too
    text = {"compact": json.dumps(report, separators=(",", ":")), "indented": json.dumps(report, indent=1),
            "bom": "\ufeff" + json.dumps(report)}[layout]
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(sources, "MiB_CHUNK", 3)
    rows, streamed = ingest_both(tmp_path, monkeypatch, [path])
    assert streamed == rows
    assert len(rows["nodes"]) == 15


@pytest.mark.parametrize("cut", [9, 12, 2000, 3423, -400, -40, -1])
@pytest.mark.parametrize("chunk", [7, 2**20])
def test_a_truncated_streamed_json_is_one_line_saying_what_was_expected(tmp_path, monkeypatch, cli, cut, chunk):
    """A report cut anywhere (in a name, a number, between members, before its last brace):
    one line naming the file, the line and column, and what JSON expected there, as the
    row-by-row reader says it."""
    path = tmp_path / "cut.json"
    path.write_bytes((REPORTS / "resnet50_nhwc.report.json").read_bytes()[:cut])
    monkeypatch.setattr(sources, "MiB_CHUNK", chunk)
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "1")
    result = cli("ingest", path, "--model", "m")
    assert result.code == 1 and "Traceback" not in result.err
    line, = result.err.strip().splitlines()
    assert f"{path}:1: expected a Report JSON object: " in line and " at column " in line
    from hotdb.ingest.pipeline import read
    monkeypatch.setenv("HOTDB_STREAM_BYTES", str(1 << 40))
    with pytest.raises(ParseError) as whole:
        read([path], None)
    assert str(whole.value) in line


@pytest.mark.parametrize("damage, expected", [
    (lambda t: t.replace(b'"Count":{"count":1},', b'"Count":{"count":1}', 1), "Expecting ',' delimiter at column"),
    (lambda t: t + b"\n]", "Extra data at column 1"),
    (lambda t: t.replace(b"tvmgen_default_fused_nn_max_pool2d", b"tvmgen_default_fused_nn_max_\xffpool2d"),
     "not utf-8 text (byte 0xff at offset"),
    (lambda t: t.replace(b"tvmgen_default_fused_nn_max_pool2d", b"tvmgen_default_fused_nn_max_\x00pool2d"),
     "binary data (NUL byte)"),
])
def test_a_damaged_streamed_json_is_a_parse_error(tmp_path, monkeypatch, damage, expected):
    path = tmp_path / "damaged.json"
    path.write_bytes(damage((REPORTS / "resnet50_nhwc.report.json").read_bytes()))
    monkeypatch.setattr(sources, "MiB_CHUNK", 64)
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "1")
    from hotdb.ingest.pipeline import read
    with pytest.raises(ParseError) as caught:
        read([path], None)
    assert expected in str(caught.value) and str(path) in str(caught.value)


def test_a_streamed_json_value_larger_than_a_line_may_be_is_refused(tmp_path, monkeypatch):
    """What one call may take while it is decoded is bounded (HOTDB_MAX_LINE_BYTES)."""
    call = {"Name": {"string": "k" * 5000}, "Duration (us)": {"microseconds": 1.0}}
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"calls": [call]}))
    monkeypatch.setattr(sources, "MiB_CHUNK", 256)
    monkeypatch.setenv("HOTDB_STREAM_BYTES", "1")
    monkeypatch.setenv("HOTDB_MAX_LINE_BYTES", "1024")
    from hotdb.ingest.pipeline import read
    with pytest.raises(ParseError, match="a value of more than 1,024 characters .*HOTDB_MAX_LINE_BYTES"):
        read([path], None)
