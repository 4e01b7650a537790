"""Lake mode: many writers without a lock, readers that are plain DuckDB, and every view
agreeing with a database file that received the same ingests one at a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import DATA, TVM09_TABLE, here, hotdb, spark_coverage_sql, start


def jobs(vgg16) -> list[tuple]:
    """Two models, each with its IR and tasks in one ingest and two profiles in others: the
    writers of one model race for run labels and for matching against each other's IR."""
    return [
        ("ingest", vgg16["relay"], vgg16["tasks"], "--model", "a"),
        ("ingest", vgg16["table"], "--model", "a"),
        ("ingest", TVM09_TABLE, "--model", "a"),
        ("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "b"),
        ("ingest", TVM09_TABLE, "--model", "b"),
    ]


def views_by_content(*where) -> dict:
    """Each run's coverage and matches keyed by what it is (model, total time), not by its
    label: concurrent writers may number one model's runs in either order."""
    runs = {r["run"]: (r["model"], round(r["total_time_us"], 3)) for r in
            json.loads(here(*where, "runs", "-f", "json").stdout)}
    out = {}
    for label, key in runs.items():
        top = json.loads(here(*where, "top", "--run", label, "--coverage", "90", "-f", "json").stdout)
        matches = json.loads(here(*where, "matches", "--run", label, "-f", "json").stdout)
        out[key] = ([(t.get("workload"), t.get("task_name"), round(t["time_us"], 3)) for t in top],
                    sorted((m["func_name"], m["method"], m["workload"]) for m in matches))
    return out


def test_four_writers_at_once_lose_nothing_and_agree_with_a_database_file(tmp_path, vgg16):
    lake = tmp_path / "lake"
    database = tmp_path / "serial.duckdb"
    for job in jobs(vgg16):
        here("--db", database, *job)
    first, *rest = jobs(vgg16)
    hotdb("--lake", lake, *first)  # a folder to race into; then four writers at once
    procs = [start("--lake", lake, *job) for job in rest]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * len(rest), errors
    runs = json.loads(here("--lake", lake, "runs", "-f", "json").stdout)
    assert sorted(r["run"] for r in runs) == ["a-1", "a-2", "b-1", "b-2"]  # each once, numbered without gaps
    lake_views = views_by_content("--lake", lake)
    assert lake_views == views_by_content("--db", database)
    assert len(lake_views) == 4
    # the same ingests again: nothing new anywhere
    again = [start("--lake", lake, *job) for job in jobs(vgg16)]
    outputs = [p.communicate(timeout=300) for p in again]
    assert all(p.returncode == 0 for p in again) and all("nothing new" in o + e for o, e in outputs)
    assert len(json.loads(here("--lake", lake, "runs", "-f", "json").stdout)) == 4


READER = """
import duckdb, json, os, sys, time
from deltalake import DeltaTable
from deltalake.exceptions import TableNotFoundError
lake, want = sys.argv[1], int(sys.argv[2])
seen = set()
deadline = time.time() + 120
while time.time() < deadline:
    try:  # the commit log first, then the rows: what docs/lake.md tells any engine
        commits = DeltaTable(lake + "/_commits").to_pyarrow_table()
        calls = DeltaTable(lake + "/node_calls").to_pyarrow_dataset()
    except TableNotFoundError:  # no run yet: no table of nodes
        seen.add(0)
        continue
    n = duckdb.sql("SELECT count(*) FROM calls WHERE lake_commit IN (SELECT commit_id FROM commits)").fetchall()[0][0]
    seen.add(n)
    if n >= want:
        break
print(json.dumps(sorted(seen)), flush=True)
# once (2026-12-05) this process aborted in a library's C++ ("terminate called without an
# active exception") with no sign of which step; what it read is said above, so its exit
# skips the libraries' teardown, and an abort before the print still fails the test
os._exit(0)
"""


def test_plain_duckdb_and_deltalake_read_the_lake_while_a_writer_adds_to_it(tmp_path, vgg16):
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], "--model", "m")
    reader = subprocess.Popen([sys.executable, "-c", READER, str(lake), str(4 * 26)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    for label in ("r1", "r2", "r3", "r4"):
        table = tmp_path / f"{label}.txt"  # four distinct profiles: the example's table and a comment
        lines = Path(vgg16["table"]).read_text().splitlines()
        table.write_text("\n".join(lines) + f"\n# {label}\n")
        here("--lake", lake, "ingest", table, "--model", "m", "--run", label)
    out, err = reader.communicate(timeout=180)
    assert reader.returncode == 0, (out, err)
    counts = json.loads(out)
    assert counts[-1] == 4 * 26 and set(counts) <= {0, 26, 52, 78, 104}  # whole ingests only, never a part


def parquet_files(table: Path) -> int:
    return len(list(table.glob("*.parquet")))


def test_import_compact_export_and_time_travel_keep_every_view(tmp_path, vgg16, monkeypatch):
    database = tmp_path / "db.duckdb"
    for job in jobs(vgg16):
        here("--db", database, *job)
    lake = tmp_path / "lake"
    assert "imported 2 models, 4 runs" in here("--db", database, "lake", "import", lake).stderr
    again = here("--db", database, "lake", "import", lake).stderr  # a second import finds it all there
    assert "imported 0 models, 0 runs" in again and "5 ingests skipped: the lake holds their files" in again
    expected = views_by_content("--db", database)
    assert views_by_content("--lake", lake) == expected
    version = json.loads(here("--lake", lake, "sql", "SELECT count(*) AS n FROM runs", "-f", "json").stdout)[0]["n"]
    assert version == 4
    here("--lake", lake, *jobs(vgg16)[0])  # model a's IR again: nothing new, no commit
    here("--lake", lake, *jobs(vgg16)[3][:4], "--model", "c")  # a third model, one more commit
    # the commit log's version before the third model's commit: the lake as it was
    before = json.loads(here("--lake", lake, "--as-of", "2", "runs", "-f", "json").stdout)
    assert sorted(r["model"] for r in before) == ["a", "a", "b", "b"]
    files = parquet_files(lake / "node_calls")
    monkeypatch.setenv("HOTDB_LAKE_RETENTION", "0")  # vacuum what no version needs any more
    assert "compacted 13 tables" in here("--lake", lake, "lake", "compact", lake).stderr
    assert parquet_files(lake / "node_calls") == 1 < files
    assert {k: v for k, v in views_by_content("--lake", lake).items() if k[0] != "c"} == expected
    assert len(json.loads(here("--lake", lake, "runs", "-f", "json").stdout)) == 5
    gone = hotdb("--lake", lake, "--as-of", "2", "runs", check=False)  # vacuumed: said in one line
    assert gone.returncode == 1 and "vacuumed" in gone.stderr and len(gone.stderr.strip().splitlines()) == 1
    exported = {r["table"]: r["rows"] for r in
                json.loads(here("--lake", lake, "lake", "export", "--parquet", tmp_path / "plain", "-f", "json").stdout)}
    import duckdb

    assert exported["runs"] == 5
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{tmp_path / 'plain/node_calls/*.parquet'}')").fetchall()[0][0] \
        == exported["node_calls"] == sum(r["nodes"] for r in json.loads(here("--lake", lake, "runs", "-f", "json").stdout))


def test_the_documented_coverage_query_over_the_plain_export_agrees_with_top(tmp_path, vgg16):
    """docs/lake.md's query for engines without Delta, run by DuckDB over `lake export
    --parquet` (Spark runs the same text in tests/store/test_lake_spark.py where Java is)."""
    import duckdb

    lake, plain = tmp_path / "lake", tmp_path / "plain"
    here("--lake", lake, *jobs(vgg16)[3])
    here("--lake", lake, "lake", "export", "--parquet", plain)
    con = duckdb.connect()
    for table in ("runs", "node_calls", "node_signatures", "kernel_match_results"):
        con.read_parquet(str(plain / table / "*.parquet")).create_view(table)
    got = [(w, round(t, 3), round(c, 6)) for w, t, _, c in con.sql(spark_coverage_sql().replace("${run}", "b-1")).fetchall()]
    top = json.loads(here("--lake", lake, "top", "--run", "b-1", "--coverage", "90", "--share-of", "run", "-f", "json").stdout)
    assert got == [(r["workload"], round(r["time_us"], 3), round(r["cumulative_pct"], 6)) for r in top]
    assert len(got) >= 5




OLD_LAKE = DATA / "lake-0.2" / "lake"


def test_a_lake_of_the_folder_layout_is_read_then_converted_once(tmp_path, vgg16):
    import shutil

    lake = tmp_path / "old"
    shutil.copytree(OLD_LAKE, lake)
    before = views_by_content("--lake", lake)
    assert sorted(r["run"] for r in json.loads(here("--lake", lake, "runs", "-f", "json").stdout)) == \
        ["other/model-1", "third", "tvm 0.9", "vgg16-1"]
    refused = hotdb("--lake", lake, "ingest", TVM09_TABLE, "--model", "x", check=False)
    assert refused.returncode != 0 and "hotdb lake convert" in refused.stderr and "Traceback" not in refused.stderr
    assert "converted 2 models, 4 runs" in here("lake", "convert", lake).stderr
    assert not list(lake.glob("model=*"))  # the folders are gone
    assert views_by_content("--lake", lake) == before
    here("--lake", lake, "ingest", vgg16["table"], "--model", "other/model")  # writable now, numbering goes on
    assert "other/model-2" in [r["run"] for r in json.loads(here("--lake", lake, "runs", "-f", "json").stdout)]
    again = hotdb("lake", "convert", lake, check=False)
    assert again.returncode != 0 and "nothing to convert" in again.stderr


def test_writers_compact_once_the_commit_log_has_enough_files(tmp_path, vgg16, monkeypatch):
    from deltalake import DeltaTable

    lake = tmp_path / "lake"
    monkeypatch.setenv("HOTDB_LAKE_AUTO_COMPACT", "3")
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], "--model", "m")
    for path in _distinct_profiles(tmp_path, vgg16, 3):
        here("--lake", lake, "ingest", path, "--model", "m")
    # the third commit compacted: its log is one file and one more commit's
    assert len(DeltaTable(str(lake / "_commits")).file_uris()) <= 3
    assert len(DeltaTable(str(lake / "node_calls")).file_uris()) <= 2
    assert sorted(r["run"] for r in json.loads(here("--lake", lake, "runs", "-f", "json").stdout)) == ["m-1", "m-2", "m-3"]


def _distinct_profiles(tmp_path, vgg16, n: int) -> list:
    paths = []
    for i in range(n):
        path = tmp_path / f"profile-{i}.txt"
        path.write_text(Path(vgg16["table"]).read_text() + f"\n# profile {i}\n")
        paths.append(path)
    return paths


def test_an_import_skips_a_run_label_the_lake_holds_and_says_so(tmp_path, vgg16):
    """A database whose run `m-1` is not the lake's `m-1`: the lake's run is kept, the
    clashing ingest skipped and named, the other models imported; again, nothing more."""
    lake, db = tmp_path / "lake", tmp_path / "a.duckdb"
    hotdb("--lake", lake, "ingest", vgg16["table"], "--model", "m")
    here("--db", db, "ingest", TVM09_TABLE, "--model", "m")
    here("--db", db, "ingest", vgg16["relay"], vgg16["tasks"], "--model", "other")
    before = json.loads(here("--lake", lake, "runs", "-f", "json").stdout)
    imported = hotdb("--db", db, "lake", "import", lake)
    assert "Traceback" not in imported.stderr
    assert "imported 1 model, 0 runs" in imported.stderr and "m/m-1" in imported.stderr
    assert json.loads(here("--lake", lake, "runs", "-f", "json").stdout) == before  # the lake's m-1, unchanged
    models = {m["model"]: m for m in json.loads(here("--lake", lake, "models", "-f", "json").stdout)}
    assert models["other"]["ir_calls"] == 56 and models["other"]["tasks"] > 0
    again = hotdb("--db", db, "lake", "import", lake)
    assert "imported 0 models, 0 runs" in again.stderr
    assert json.loads(here("--lake", lake, "models", "-f", "json").stdout) == list(models.values())
