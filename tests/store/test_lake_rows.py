"""A local lake's rows kept as a database file in the cache (hotdb/store/lake_snapshot.py): a
read of an unchanged lake opens the kept file and answers what the lake itself answers;
after a commit, a damaged file, over the size limit, and with a writer landing while the
copy is made, each read answers what the lake holds at that moment, and nothing else is
kept in its name."""

from __future__ import annotations

import json

import duckdb
from helpers import TVM09_TABLE, here


def kept(cache) -> list:
    return sorted(cache.glob("lake-rows-*.duckdb"))


def top(lake) -> list[dict]:
    return json.loads(here("--lake", lake, "top", "--all-models", "-f", "json").stdout)


def runs(lake) -> list[str]:
    return sorted(r["run"] for r in json.loads(here("--lake", lake, "runs", "-f", "json").stdout))


def unkept(lake, monkeypatch) -> list[dict]:
    """What the lake itself answers: its views, no copy."""
    with monkeypatch.context() as m:
        m.setenv("HOTDB_LAKE_KEEP", "0")
        return top(lake)


def test_an_unchanged_lake_reads_from_its_copy_and_a_commit_makes_a_new_one(tmp_path, vgg16, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["relay"], vgg16["tasks"], vgg16["table"], "--model", "a")
    assert not kept(cache)  # an ingest keeps nothing: the first read does
    first = top(lake)
    copy, = kept(cache)
    made = copy.stat()
    assert top(lake) == first == unkept(lake, monkeypatch)
    assert [copy] == kept(cache) and copy.stat().st_mtime_ns == made.st_mtime_ns  # opened, not made again
    with duckdb.connect(str(copy), read_only=True) as con:  # a database file any DuckDB client reads
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    here("--lake", lake, "ingest", TVM09_TABLE, "--model", "a")
    assert runs(lake) == ["a-1", "a-2"]
    new, = kept(cache)  # the lake moved past the first copy: it is gone
    assert new != copy and not copy.exists()
    assert top(lake) == unkept(lake, monkeypatch)


def test_a_damaged_copy_costs_only_its_making(tmp_path, vgg16, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["table"], "--model", "a")
    expected = top(lake)
    copy, = kept(cache)
    for damage in (b"", b"\x00\xff" * 100, copy.read_bytes()[: copy.stat().st_size // 2]):
        copy.write_bytes(damage)
        assert top(lake) == expected
        assert kept(cache) == [copy] and copy.stat().st_size > len(damage)  # made again, whole


def test_a_lake_over_the_limit_is_read_as_it_lies(tmp_path, vgg16, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    monkeypatch.setenv("HOTDB_LAKE_KEEP", "1KB")  # a profile's Parquet files come to more
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["table"], "--model", "a")
    assert runs(lake) == ["a-1"] and not kept(cache)


def test_a_writer_landing_while_the_copy_is_made_leaves_no_copy(tmp_path, vgg16, monkeypatch):
    """The reader has read the commit log when an ingest lands (a real one, run at the
    reader's failpoint); the tables it lists next have moved, so its copy would hold rows
    of versions its name does not say. It keeps none and reads the lake as it is now; the
    next read copies that."""
    from hotdb import failpoints
    from hotdb.api import Hotdb

    cache = tmp_path / "cache"
    monkeypatch.setenv("HOTDB_CACHE_DIR", str(cache))
    lake = tmp_path / "lake"
    here("--lake", lake, "ingest", vgg16["table"], "--model", "a")
    landed = []

    def land(name: str) -> None:
        if name == "lake-read-log" and not landed:
            landed.append(name)
            Hotdb(lake=lake).ingest([TVM09_TABLE], model="a")
    failpoints.install(land)
    try:
        answered = runs(lake)
    finally:
        failpoints.install(None)
    assert landed and answered == ["a-1", "a-2"] and not kept(cache)
    assert runs(lake) == answered and len(kept(cache)) == 1
