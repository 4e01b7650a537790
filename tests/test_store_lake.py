"""Lake mode: many writers without a lock, readers that are plain DuckDB, and every view
agreeing with a database file that received the same ingests one at a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"
TVM09_TABLE = DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt"


def hotdb(*args, env=None, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "hotdb", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def here(*args) -> subprocess.CompletedProcess:
    """hotdb ARGS run in this process (no interpreter start): for what needs no process of
    its own, such as reading, or writing a database file one ingest at a time."""
    import contextlib
    import io

    from hotdb.cli import app, hoisted

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = app(args=hoisted([str(a) for a in args]), prog_name="hotdb", standalone_mode=False)
    assert not code, err.getvalue()
    return subprocess.CompletedProcess(args, code or 0, out.getvalue(), err.getvalue())


def start(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "hotdb", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


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
        out[key] = ([(t["workload"], t["task_name"], round(t["time_us"], 3)) for t in top],
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


def test_plain_duckdb_reads_the_lake_while_a_writer_adds_to_it(tmp_path, vgg16):
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], "--model", "m")
    reader = subprocess.Popen([sys.executable, "-c", f"""
import duckdb, sys, time
seen = set()
deadline = time.time() + 60
while time.time() < deadline:
    try:
        n = duckdb.sql("SELECT count(*) FROM read_parquet('{lake}/model=*/run=*/node_calls.parquet', hive_partitioning = true)").fetchall()[0][0]
    except duckdb.IOException:  # no run yet: no nodes file
        n = 0
    seen.add(n)
    if n >= 4 * 26:
        break
print(sorted(seen))
"""], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for label in ("r1", "r2", "r3", "r4"):
        table = tmp_path / f"{label}.txt"  # four distinct profiles: the example's table, times scaled
        lines = Path(vgg16["table"]).read_text().splitlines()
        table.write_text("\n".join(lines) + f"\n# {label}\n")
        here("--lake", lake, "ingest", table, "--model", "m", "--run", label)
    out, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, err
    counts = json.loads(out)
    assert counts[-1] == 4 * 26 and set(counts) <= {0, 26, 52, 78, 104}  # whole ingests only, never a part


def test_export_then_compact_keeps_every_view(tmp_path, vgg16):
    database = tmp_path / "db.duckdb"
    for job in jobs(vgg16):
        here("--db", database, *job)
    lake = tmp_path / "lake"
    assert "imported 2 models, 4 runs" in here("--db", database, "lake", "import", lake).stderr
    expected = views_by_content("--db", database)
    assert views_by_content("--lake", lake) == expected
    folders = len(list(lake.glob("model=*/run=*")))
    assert "compacted" in here("--lake", lake, "lake", "compact", lake).stderr
    assert len(list(lake.glob("model=*/run=*"))) == 2 < folders  # one folder per model
    assert views_by_content("--lake", lake) == expected
    here("--lake", lake, *jobs(vgg16)[2][:1], TVM09_TABLE, "--model", "c")  # writers go on after a compaction
    assert len(json.loads(here("--lake", lake, "runs", "-f", "json").stdout)) == 5
    manifests = {r["table"]: r["files"] for r in json.loads(here("lake", "manifest", lake, "-f", "json").stdout)}
    listed = (lake / "_manifests/node_calls/manifest").read_text().split()
    assert manifests["node_calls"] == len(listed) == 3 and all(Path(u.removeprefix("file://")).exists() for u in listed)
