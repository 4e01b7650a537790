"""The lake's coordination across hosts and clocks: the cases of the second hostile review
(issue 43) in which rows were doubled or lost, each as processes do it.

Two compactions from one snapshot, in two PID namespaces or after a lease ran out; a
writer paused while compactions with another retention or a clock two hours ahead run; a
dead holder's lease written with a clock a year ahead; a cache on a nearly full disk.
What a test sleeps is the pause it stages (a failpoint parked for N seconds), never a
bound on how long anything takes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import TVM09_TABLE, here

# hotdb with Python's clock moved by SKEW seconds (what a host whose clock is off gives
# hotdb's own code; the store's clock, a file's modification time, is the disk's)
SKEWED = ("import os, sys, time; _t = time.time; _s = float(os.environ['SKEW']); time.time = lambda: _t() + _s; "
          "sys.argv[0] = 'hotdb'; from hotdb.cli.app import main; main()")


def committed_rows(lake: Path) -> dict[str, int]:
    """Per table, the rows of landed commits, counted in the Delta tables themselves (what
    any engine reading the lake counts, doubles included)."""
    import duckdb
    from deltalake import DeltaTable

    from hotdb.store.lake import tables

    con = duckdb.connect()
    con.register("commits", DeltaTable(str(lake / "_commits")).to_pyarrow_dataset())
    counts = {}
    for table in tables():
        if (lake / table / "_delta_log").is_dir():
            con.register("t", DeltaTable(str(lake / table)).to_pyarrow_dataset())
            counts[table] = con.sql("SELECT count(*) FROM t WHERE lake_commit IN (SELECT commit_id FROM commits)").fetchall()[0][0]
            con.unregister("t")
    return counts


def run_totals(lake: Path) -> dict[str, tuple]:
    from hotdb.api import Hotdb

    rows = Hotdb(lake=lake).sql("""SELECT r.label, count(c.node_index) AS nodes, round(sum(c.time_us), 3) AS us
                                   FROM runs AS r LEFT JOIN node_calls AS c USING (run_id) GROUP BY 1 ORDER BY 1""")
    return {r["label"]: (r["nodes"], r["us"]) for r in rows.records()}


@pytest.fixture(scope="module")
def base_lake(tmp_path_factory) -> Path:
    """A model's IR, tasks and two runs, as four commits; tests work on copies."""
    from hotdb.examples import example_files

    files = {Path(f).name.split(".", 1)[1]: Path(f) for f in example_files("vgg16")}
    lake = tmp_path_factory.mktemp("trust") / "lake"
    here("--lake", lake, "ingest", files["relay.txt"], files["autotvm_tasks.txt"], "--model", "m")
    here("--lake", lake, "ingest", files["debug_table.txt"], "--model", "m", "--run", "r1")
    here("--lake", lake, "ingest", TVM09_TABLE, "--model", "m", "--run", "r2")
    return lake


@pytest.fixture
def lake(tmp_path, base_lake) -> Path:
    copy = tmp_path / "lake"
    shutil.copytree(base_lake, copy)
    return copy


def parked(argv: list, failpoint: str, sleep_s: float, env: dict | None = None) -> subprocess.Popen:
    """A process started, returned once it is parked at `failpoint` for `sleep_s` seconds
    (it then goes on by itself)."""
    env = {**os.environ, **(env or {}), "HOTDB_FAILPOINT": failpoint, "HOTDB_FAILPOINT_SLEEP": str(sleep_s)}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        for line in proc.stderr:
            if f"failpoint {failpoint}" in line:
                return proc
    except BaseException:
        proc.kill()
        raise
    proc.kill()
    raise AssertionError(f"{argv} ended before {failpoint}: {proc.communicate()}")


def finished(proc: subprocess.Popen) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    return proc.returncode, err


def hotdb_argv(*args) -> list:
    return [sys.executable, "-m", "hotdb", *map(str, args)]


def _unshare(*flags) -> list | None:
    probe = subprocess.run(["unshare", *flags, "true"], capture_output=True) if shutil.which("unshare") else None
    return None if probe is None or probe.returncode else ["unshare", *flags]


def test_compactions_in_two_pid_namespaces_double_nothing(lake):
    """Case 1: a compaction in a PID namespace of its own (a container with the same host
    name), slowed between reading a table and rewriting it, and a plain one beside it."""
    unshare = _unshare("--pid", "--fork", "--mount-proc")
    if unshare is None:
        pytest.skip("unshare --pid needs privileges this machine does not give (the simulation covers two namespaces)")
    before, totals = committed_rows(lake), run_totals(lake)
    slow = parked([*unshare, *hotdb_argv("lake", "compact", lake)], "compact-rewrite", 4)
    plain = subprocess.run(hotdb_argv("lake", "compact", lake), capture_output=True, text=True, timeout=300)
    code, err = finished(slow)
    assert plain.returncode == 0 and code == 0, (plain.stderr, err)
    assert committed_rows(lake) == before and run_totals(lake) == totals
    here("lake", "compact", lake)
    assert committed_rows(lake) == before


def test_a_holder_whose_lease_ran_out_cannot_commit_after_the_next(lake):
    """Case 2: a compaction on another host (another UTS name) paused past its lease (half
    the lake's retention of 2 s) while the next one takes the lake over."""
    unshare = _unshare("--uts")
    if unshare is None:
        pytest.skip("unshare --uts needs privileges this machine does not give (the simulation covers lost leases)")
    env = {"HOTDB_LAKE_RETENTION": "2"}
    before, totals = committed_rows(lake), run_totals(lake)
    slow = parked([*unshare, "sh", "-c", 'hostname other-host && exec "$@"', "sh", *hotdb_argv("lake", "compact", lake)],
                  "compact-rewrite", 5, env)
    time.sleep(1.5)  # the pause staged: past the slow holder's lease
    plain = subprocess.run(hotdb_argv("lake", "compact", lake), capture_output=True, text=True, timeout=300,
                           env={**os.environ, **env})
    code, err = finished(slow)
    assert plain.returncode == 0, plain.stderr
    assert "busy" not in plain.stderr and "left to" not in plain.stderr  # the lease had run out: it compacted
    assert code in (0, 1) and "Traceback" not in err, err  # the superseded holder: refused, said in a line
    assert committed_rows(lake) == before and run_totals(lake) == totals


@pytest.mark.parametrize("compactor", ["retention-5s", "clock-2h-ahead", "writer-clock-2h-behind"])
def test_a_compaction_never_deletes_an_ingest_still_landing(tmp_path, lake, compactor):
    """Case 3: a writer paused between writing its rows and landing its commit, while
    compactions run that judge its rows old: by a 5 s retention, by a clock two hours
    ahead, or because the writer's own clock is two hours behind. The writer lands whole
    (or refuses in one line), never with rows missing."""
    from helpers import write_run

    profile = write_run(tmp_path / "r3.txt", 1.3, 3)
    writer_argv = hotdb_argv("--lake", lake, "ingest", profile, "--model", "m", "--run", "r3")
    compact_env = dict(os.environ)
    if compactor == "writer-clock-2h-behind":
        writer_argv = [sys.executable, "-c", SKEWED, "--lake", str(lake), "ingest", str(profile), "--model", "m",
                       "--run", "r3"]
    writer = parked(writer_argv, "lake-written", 8, {"SKEW": "-7200"})
    compact_argv = hotdb_argv("lake", "compact", lake)
    if compactor == "retention-5s":
        compact_env["HOTDB_LAKE_RETENTION"] = "5"
        time.sleep(6)  # the pause staged: the writer's rows are older than that retention
    elif compactor == "clock-2h-ahead":
        compact_argv = [sys.executable, "-c", SKEWED, "lake", "compact", str(lake)]
        compact_env["SKEW"] = "7200"
    for _ in range(3):  # compactions while the writer is paused: each may decide its rows are a dead writer's
        done = subprocess.run(compact_argv, capture_output=True, text=True, env=compact_env, timeout=300)
        assert done.returncode == 0, done.stderr
    code, err = finished(writer)
    assert "Traceback" not in err, err
    expected = len([line for line in profile.read_text().splitlines() if line.strip()])
    totals = run_totals(lake)
    if code == 0:
        assert "r3" in totals and totals["r3"][0] > 0
        reference = tmp_path / "reference"
        here("--lake", reference, "ingest", profile, "--model", "m", "--run", "r3")
        assert totals["r3"] == run_totals(reference)["r3"], (totals, expected)
    else:
        assert "r3" not in totals and len(err.strip().splitlines()) == 1, err
    again = subprocess.run(hotdb_argv("--lake", lake, "ingest", profile, "--model", "m", "--run", "r3"),
                           capture_output=True, text=True, timeout=300)
    assert again.returncode in (0, 1) and "Traceback" not in again.stderr, again.stderr
    assert run_totals(lake)["r3"][0] > 0


def test_a_dead_holder_with_a_clock_a_year_ahead_blocks_compaction_only_for_its_lease(lake):
    """Case 4: a lease claim another host wrote, its clock a year ahead, its process gone:
    after the lease's length by the lake's own clock (half of 2 s), the next compaction runs."""
    from datetime import datetime, timedelta, timezone

    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    env = {**os.environ, "HOTDB_LAKE_RETENTION": "2"}
    subprocess.run(hotdb_argv("lake", "compact", lake), env=env, check=True, capture_output=True)
    log = DeltaTable(str(lake / "_commits"))
    held = [c for c in pa.table(log.to_pyarrow_table())["claim"].to_pylist() if c.startswith("compact:")]
    number = max(int(c.split()[0].split(":")[1]) for c in held) + 1
    ahead = datetime.now(timezone.utc) + timedelta(days=365)
    row = {"commit_id": 12345, "model_id": 0, "claim": f"compact:{number} far-host.4242.777", "committed_at": ahead}
    write_deltalake(str(lake / "_commits"), pa.Table.from_pylist([row], schema=pa.schema(log.schema().to_arrow())),
                    mode="append")
    time.sleep(1.5)  # the pause staged: the dead holder's lease (1 s) is over by the disk's clock
    done = subprocess.run(hotdb_argv("lake", "compact", lake), capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "far-host" not in done.stderr and "compacted" in done.stderr, done.stderr


def test_a_cache_on_a_nearly_full_disk_is_never_kept_half_made(tmp_path, lake):
    """Case 5: the empty-database template made where only some hundreds of KB can be
    written (RLIMIT_FSIZE: every write past the limit fails, as on a full disk). Whatever
    that run does, once the space is back every lake read and write works."""
    import resource

    cache = tmp_path / "cache"
    env = {**os.environ, "HOTDB_CACHE_DIR": str(cache)}
    for limit in (400_000, 900_000, 1_400_000):
        def small(limit=limit):
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        subprocess.run(hotdb_argv("--lake", lake, "runs"), capture_output=True, env=env, preexec_fn=small, timeout=300)
        done = subprocess.run(hotdb_argv("--lake", lake, "runs", "-f", "json"), capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, (limit, done.stderr)
        assert '"r1"' in done.stdout and '"r2"' in done.stdout
