"""A local lake's latest versions remembered (hotdb/store/lake_snapshot.py): a read of an
unchanged lake opens no table with delta-rs, and what is remembered is never taken for
what a lake holds now: a commit, a compaction, a lake made again at the same path, a
damaged cache file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from helpers import TVM09_TABLE, here, hotdb


def runs(lake) -> list[tuple[str, float]]:
    return sorted((r["run"], round(r["total_time_us"], 3)) for r in
                  json.loads(here("--lake", lake, "runs", "-f", "json").stdout))


def cache_files(cache) -> list:
    return sorted(cache.glob("lake-*.json"))


def test_a_read_of_an_unchanged_lake_opens_no_table_and_a_commit_is_seen(tmp_path, vgg16, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], vgg16["table"], "--model", "a")
    first = json.loads(here("--lake", lake, "top", "--all-models", "-f", "json").stdout)
    remembered, = cache_files(cache)
    held = json.loads(remembered.read_text())["tables"]
    assert {"_commits", "runs", "node_calls", "workloads"} <= set(held)
    # a process that reads the unchanged lake does not even import delta-rs
    code = ("import sys, io, contextlib\nfrom hotdb.cli.app import invoke\n"
            f"sys.argv = ['hotdb', '--lake', {str(lake)!r}, 'top', '--all-models', '-f', 'json']\n"
            "out = io.StringIO()\nwith contextlib.redirect_stdout(out):\n"
            "    try: invoke()\n    except SystemExit: pass\n"
            "print(out.getvalue()); print('deltalake' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOTDB_CACHE_DIR": str(cache)})
    assert proc.stderr.strip().splitlines()[-1] == "False", proc.stderr
    assert json.loads(proc.stdout) == first
    # a commit since: the next read sees it
    here("--lake", lake, "ingest", TVM09_TABLE, "--model", "a")
    assert [label for label, _ in runs(lake)] == ["a-1", "a-2"]
    assert json.loads(remembered.read_text())["tables"]["runs"]["stamp"][0] > held["runs"]["stamp"][0]


def test_a_lake_made_again_at_the_same_path_is_not_taken_for_the_old_one(tmp_path, vgg16, monkeypatch):
    """Version 0 of the new lake's tables holds other files than version 0 of the old:
    the commit file's size, time and inode tell them apart."""
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(tmp_path / "cache"))
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["table"], "--model", "a")
    before = runs(lake)
    shutil.rmtree(lake)
    here("--lake", lake, "ingest", TVM09_TABLE, "--model", "b")
    after = runs(lake)
    assert [label for label, _ in after] == ["b-1"]
    assert after[0][1] != before[0][1]


def test_a_compaction_after_a_remembered_read_keeps_every_row_once(tmp_path, vgg16, monkeypatch):
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOTDB_LAKE_RETENTION", "0")
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], "--model", "a")
    for table in (vgg16["table"], TVM09_TABLE):
        here("--lake", lake, "ingest", table, "--model", "a")
    before = (runs(lake), here("--lake", lake, "top", "--all-models", "-f", "json").stdout)
    here("lake", "compact", lake)
    assert (runs(lake), here("--lake", lake, "top", "--all-models", "-f", "json").stdout) == before


def test_a_damaged_or_foreign_cache_file_costs_only_the_opens(tmp_path, vgg16, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    monkeypatch.setenv("HOTDB_LAKE_KEEP", "0")  # no copy of the rows (lake_snapshot.py), which a read would open instead
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["table"], "--model", "a")
    expected = runs(lake)
    remembered, = cache_files(cache)
    good = json.loads(remembered.read_text())
    for damage in (b"{\"format\": 1, \"tab", b"\x00\xff", json.dumps({**good, "root": "/elsewhere"}).encode(),
                   json.dumps({**good, "tables": {"runs": {"stamp": good["tables"]["runs"]["stamp"], "held": []}},
                               "root": "/elsewhere"}).encode()):
        remembered.write_bytes(damage)
        assert runs(lake) == expected
        assert json.loads(remembered.read_text())["root"] == good["root"]  # written again, whole


def test_an_unwritable_cache_leaves_reads_as_they_were(tmp_path, vgg16):
    lake = tmp_path / "lake"
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    env = {**os.environ, "HOTDB_CACHE_DIR": str(blocked / "cache")}
    hotdb("--lake", lake, "ingest", vgg16["table"], "--model", "a", env=env)
    listed = hotdb("--lake", lake, "runs", "-f", "json", env=env)
    assert [r["run"] for r in json.loads(listed.stdout)] == ["a-1"]


def test_the_cache_keeps_the_lakes_read_last(tmp_path, vgg16, monkeypatch):
    """A CI job's lake in a temporary folder has a new path each time: the cache keeps the
    files of the KEPT_LAKES lakes written last, and a lake forgotten reads as before."""
    from hotdb.store import lake_snapshot

    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    monkeypatch.setattr(lake_snapshot, "KEPT_LAKES", 3)
    lakes = [tmp_path / f"lake{i}" for i in range(5)]
    for i, lake in enumerate(lakes):
        here("--lake", lake, "ingest", vgg16["table"], "--model", f"m{i}")
        runs(lake)  # a read remembers the lake's versions
    kept = {json.loads(path.read_text())["root"] for path in cache_files(cache)}
    assert len(kept) == 3 and str(lakes[-1]) in kept and str(lakes[0]) not in kept
    assert [label for label, _ in runs(lakes[0])] == ["m0-1"]
