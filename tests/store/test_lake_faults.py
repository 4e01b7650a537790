"""A lake survives a writer killed at any step: after the kill, the next writer and a
compaction, every view equals a lake that received the same ingests with no kill, and no
run is lost or listed twice. (Random kills of many writers at once:
tests/store/test_lake_concurrency.py.)

The kills land at failpoints (HOTDB_FAILPOINT parks a process at a named step, then the
test SIGKILLs it). The slow sweep kills at every filesystem call of an ingest and of a
compaction instead, with strace's fault injection."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import DATA, TVM09_TABLE, here, hotdb

DUMP = DATA / "debug-dump" / "vgg16" / "tvmdbg_vgg16"



def ingests(vgg16) -> list[tuple]:
    """Four ingests of one model, run labels given: the same lake whatever the order."""
    return [("ingest", vgg16["relay"], vgg16["tasks"], "--model", "m"),
            ("ingest", vgg16["table"], "--model", "m", "--run", "r1"),
            ("ingest", TVM09_TABLE, "--model", "m", "--run", "r2"),
            ("ingest", DUMP, "--model", "m", "--run", "r3")]


def summary(lake: Path) -> dict:
    """What every reader sees: per run its nodes, time and top tasks; the model's tasks."""
    from hotdb.api import Hotdb

    reader = Hotdb(lake=lake)
    runs = reader.sql("""
        SELECT r.label, count(n.node_index) AS nodes, round(sum(n.time_us), 3) AS time_us
        FROM runs AS r LEFT JOIN nodes AS n USING (run_id) GROUP BY r.label ORDER BY r.label""").records()
    tops = {r["label"]: [(t["task_name"], round(t["time_us"], 3)) for t in reader.top(run=r["label"]).records()]
            for r in runs}
    tasks = reader.sql("SELECT count(*) AS n FROM model_tasks").records()
    return {"runs": runs, "tops": tops, "tasks": tasks}


@pytest.fixture(scope="module")
def vgg16_files():
    from hotdb.examples import example_files

    files = {Path(f).name.split(".", 1)[1]: Path(f) for f in example_files("vgg16")}
    return {"table": files["debug_table.txt"], "relay": files["relay.txt"], "tasks": files["autotvm_tasks.txt"]}


@pytest.fixture(scope="module")
def lakes(tmp_path_factory, vgg16_files) -> dict:
    """Lakes after the first n ingests (n = 2, 3, 4), made once; tests work on copies."""
    made, jobs = {}, ingests(vgg16_files)
    lake = tmp_path_factory.mktemp("lakes") / "lake"
    for n, job in enumerate(jobs, start=1):
        here("--lake", lake, *job)
        if n >= 2:
            made[n] = lake.parent / f"after-{n}"
            shutil.copytree(lake, made[n])
    return made


@pytest.fixture(scope="module")
def reference(lakes) -> dict:
    """The lake that received the four ingests with no kill, then a compaction."""
    lake = lakes[4].parent / "reference"
    shutil.copytree(lakes[4], lake)
    here("lake", "compact", lake)
    return summary(lake)


def copy_of(lakes: dict, n: int, where: Path) -> Path:
    shutil.copytree(lakes[n], where)
    return where


def killed_at(failpoint: str, *args) -> None:
    """Run hotdb until it parks at `failpoint`, then SIGKILL it."""
    env = {**os.environ, "HOTDB_FAILPOINT": failpoint}
    proc = subprocess.Popen([sys.executable, "-m", "hotdb", *map(str, args)], stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        if f"failpoint {failpoint}" in line:
            break
        assert time.monotonic() < deadline
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"{failpoint} was never reached"


@pytest.mark.parametrize("failpoint", ["lake-appending", "lake-written", "lake-committed"])
def test_an_ingest_killed_at_any_step_is_retried_at_once(tmp_path, vgg16_files, lakes, reference, failpoint, monkeypatch):
    lake = copy_of(lakes, 2, tmp_path / "lake")
    jobs = ingests(vgg16_files)
    killed_at(failpoint, "--lake", lake, *jobs[2])
    assert [r["label"] for r in summary(lake)["runs"]] == (["r1", "r2"] if failpoint == "lake-committed" else ["r1"])
    retry = here("--lake", lake, *jobs[2])  # the next writer: the same ingest again (nothing waits for the dead one)
    assert retry.returncode == 0, retry.stderr
    here("--lake", lake, *jobs[3])
    monkeypatch.setenv("HOTDB_LAKE_RETENTION", "0")  # the dead writer's rows are old enough to go
    compacted = here("lake", "compact", lake).stderr
    assert ("rows of 0 unfinished" in compacted) == (failpoint == "lake-committed")
    assert summary(lake) == reference


@pytest.mark.parametrize("failpoint", ["compact-table"])
def test_a_compaction_killed_at_any_step_loses_and_doubles_nothing(tmp_path, vgg16_files, lakes, reference, failpoint):
    lake = copy_of(lakes, 3, tmp_path / "lake")
    jobs = ingests(vgg16_files)
    killed_at(failpoint, "lake", "compact", lake)
    partial = summary(lake)  # readers right after the kill: the three ingests, once each
    assert [r["label"] for r in partial["runs"]] == ["r1", "r2"]
    here("--lake", lake, *jobs[3])  # the next writer
    here("lake", "compact", lake)
    here("lake", "compact", lake)  # a second compaction of a compacted lake
    assert summary(lake) == reference


def test_eight_writers_sharing_files_all_land(tmp_path, vgg16_files):
    """The default HOTDB_LOCK_TIMEOUT: writers that share an IR file conflict on its claim,
    one commits it, the others read again and find it stored, and all land."""
    from helpers import write_run

    lake = tmp_path / "lake"
    profiles = [write_run(tmp_path / f"profile{i}.txt", 1.0, i) for i in range(8)]  # eight measurements
    procs = [subprocess.Popen([sys.executable, "-m", "hotdb", "--lake", str(lake), "ingest", str(vgg16_files["relay"]),
                               str(vgg16_files["tasks"]), str(profiles[i]), "--model", "m", "--run", f"w{i}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(8)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    runs = json.loads(here("--lake", lake, "runs", "-f", "json").stdout)
    assert sorted(r["run"] for r in runs) == [f"w{i}" for i in range(8)]
    sources = json.loads(here("--lake", lake, "sql", "SELECT format, count(*) AS n FROM sources GROUP BY 1 ORDER BY 1",
                               "-f", "json").stdout)
    assert {s["format"]: s["n"] for s in sources} == {"autotvm-tasks": 1, "debug-table": 8, "relay": 1}


STRACE = shutil.which("strace")
# the calls that change what a lake holds: a kill just before each is a state a reader meets
CHANGES = "rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat,link,linkat,fsync"


def _calls(args: list, env: dict) -> int:
    """How many of CHANGES one run makes (strace -c counts them)."""
    out = subprocess.run([STRACE, "-f", "-c", "-e", f"trace={CHANGES}", sys.executable, "-m", "hotdb", *map(str, args)],
                         capture_output=True, text=True, env=env)
    return sum(int(line.split()[3]) for line in out.stderr.splitlines()
               if line.strip() and line.split()[-1] in CHANGES.split(",") and line.split()[0][0].isdigit())


@pytest.mark.slow
@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.skipif(not os.environ.get("HOTDB_KILL_SWEEP"), reason="set HOTDB_KILL_SWEEP=1: ~100 kills, ~10 minutes")
@pytest.mark.parametrize("step", ["ingest", "compact"])
def test_killed_at_every_filesystem_call(tmp_path, vgg16_files, lakes, reference, step):
    """strace's fault injection SIGKILLs the process at its n-th call that changes the
    lake, for every n: after each kill, the next writer and a compaction restore the
    reference exactly. (The failpoint tests above run in CI; this sweep is the
    exhaustive version, run before a change to the lake's layout: tests/README.md.)"""
    jobs = ingests(vgg16_files)
    start, action = (2, ["--lake", "{lake}", *jobs[2]]) if step == "ingest" else (3, ["lake", "compact", "{lake}"])
    probe = copy_of(lakes, start, tmp_path / "probe")
    total = _calls([str(a).replace("{lake}", str(probe)) for a in action], dict(os.environ))
    assert total > 5
    failures = []
    for n in range(1, total + 1):
        lake = copy_of(lakes, start, tmp_path / f"kill-{n}")
        subprocess.run([STRACE, "-f", "-o", os.devnull, "-e", f"trace={CHANGES}", "-e",
                        f"inject={CHANGES}:signal=KILL:when={n}", sys.executable, "-m", "hotdb",
                        *[str(a).replace("{lake}", str(lake)) for a in action]], capture_output=True)
        try:
            if step == "ingest":
                retry = hotdb("--lake", lake, *jobs[2], check=False)
                assert retry.returncode == 0, retry.stderr
            hotdb("--lake", lake, *jobs[3])
            hotdb("lake", "compact", lake)
            assert summary(lake) == reference
        except AssertionError as exc:
            failures.append((n, str(exc)[:300]))
        shutil.rmtree(lake, ignore_errors=True)
    print(f"{step}: {total} kill points, {total - len(failures)} restored, {len(failures)} failures")
    assert failures == [], "\n".join(f"kill {n}: {text}" for n, text in failures)
