"""Many writers, compactions and a reader on one lake at once, round after round; then the
same with writers and compactions SIGKILLed at random instants; then the same on S3.

Each round starts, all at once, eight writers (per model: its IR and tasks in one ingest,
three distinct profiles in others) and two `lake compact` processes, while one reader
process reads the number of runs over and over, each time through a fresh Hotdb. After
it all: every process exited 0 without a traceback; every profile is stored exactly once
(one run, one source, its own content and total time), labels numbered without gaps; the
reader never saw a run twice, a run without its nodes, fewer runs than a read before it,
or fewer runs than the profile writers that had exited 0 before its read began.

Sizes: HOTDB_LAKE_ROUNDS rounds (default 2; the must-show is 20) and at least
HOTDB_LAKE_KILLS kills (default 6; the must-show is 50):

    HOTDB_LAKE_ROUNDS=20 python -m pytest -s tests/store/test_lake_concurrency.py -k "rounds"
    HOTDB_LAKE_KILLS=50 python -m pytest -s tests/store/test_lake_concurrency.py -k kill

Every assertion is about what the lake holds and what processes said, none about time:
the times recorded (monotonic clock, shared by every process of the machine) only order
a reader's reads after the writers that ended before them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import here, write_run

ROUNDS = int(os.environ.get("HOTDB_LAKE_ROUNDS") or 2)
KILLS = int(os.environ.get("HOTDB_LAKE_KILLS") or 6)
KILL_WINDOW_S = 3.0  # a doomed process is killed uniformly within this many seconds of its start
KILL_CHANCE = 0.5  # of each writer and compaction started, retries included (up to KILLED_AT_MOST)
KILLED_AT_MOST = 3  # a writer's command is killed at most this many times, then left to finish
HUNG_S = 1800  # a process still running after this long is hung: killed, and reported as a failure

READER = r'''
import json, sys, time, traceback
from pathlib import Path
from hotdb.api import Hotdb

lake, stop, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
QUERY = """SELECT count(*) AS runs, count(DISTINCT label) AS labels,
                  count(*) FILTER (WHERE run_id NOT IN (SELECT run_id FROM node_calls)) AS empty,
                  (SELECT count(*) FROM (SELECT run_id, node_index FROM node_calls GROUP BY ALL
                                         HAVING count(*) > 1)) AS doubled
           FROM runs"""
samples, errors = [], []
while True:
    last = stop.exists()  # the read after the stop began after every writer ended
    began = time.monotonic()
    try:
        row = Hotdb(lake=lake).sql(QUERY).records()[0]
        samples.append([began, time.monotonic(), row["runs"], row["labels"], row["empty"], row["doubled"]])
    except Exception:  # noqa: BLE001 - every failed read is reported by the test
        errors.append(traceback.format_exc())
    if last:
        break
out.write_text(json.dumps({"samples": samples, "errors": errors}))
'''


# -- the processes -------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One writer's command: a model's IR and tasks, or one profile of it."""
    model: str
    files: tuple
    profile: Path | None = None

    def args(self, lake: str) -> list:
        return ["--lake", lake, "ingest", *self.files, "--model", self.model]


@dataclass
class Proc:
    kind: str  # writer, compact, reader
    job: Job | None
    popen: subprocess.Popen
    err: Path
    started: float
    attempt: int = 1
    kill_at: float | None = None
    kill_sent: bool = False
    ended: float | None = None
    code: int | None = None
    hung: bool = False

    @property
    def killed(self) -> bool:
        return self.kill_sent and not self.hung and self.code == -signal.SIGKILL

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")


class Fleet:
    """Every child process of a test: started with its output in files, polled, killed at
    the instant drawn for it, and all killed at the end whatever happened."""

    def __init__(self, logs: Path, env: dict, rng: random.Random):
        self.logs, self.env, self.rng = logs, env, rng
        logs.mkdir(parents=True, exist_ok=True)
        self.procs: list[Proc] = []

    def start(self, kind: str, argv: list, job: Job | None = None, attempt: int = 1, kill_chance: float = 0.0) -> Proc:
        n = len(self.procs)
        out, err = self.logs / f"{n:04d}-{kind}.out", self.logs / f"{n:04d}-{kind}.err"
        with open(out, "w") as o, open(err, "w") as e:
            popen = subprocess.Popen([sys.executable, *map(str, argv)], stdout=o, stderr=e, env=self.env)
        proc = Proc(kind, job, popen, err, time.monotonic(), attempt)
        if kill_chance and self.rng.random() < kill_chance:
            proc.kill_at = proc.started + self.rng.uniform(0, KILL_WINDOW_S)
        self.procs.append(proc)
        return proc

    def hotdb(self, kind: str, args: list, **options) -> Proc:
        return self.start(kind, ["-m", "hotdb", *args], **options)

    def running(self, kind: str | None = None) -> list[Proc]:
        return [p for p in self.procs if p.ended is None and kind in (None, p.kind)]

    def step(self) -> list[Proc]:
        """Kills what is due; the processes that ended since the last step."""
        ended = []
        for proc in self.running():
            if proc.kill_at is not None and not proc.kill_sent and time.monotonic() >= proc.kill_at \
                    and proc.popen.poll() is None:
                proc.popen.send_signal(signal.SIGKILL)
                proc.kill_sent = True
            if time.monotonic() - proc.started > HUNG_S and not proc.hung and proc.popen.poll() is None:
                proc.popen.send_signal(signal.SIGKILL)
                proc.hung = True
            code = proc.popen.poll()
            if code is not None:
                proc.ended, proc.code = time.monotonic(), code
                ended.append(proc)
        if not ended:
            time.sleep(0.02)
        return ended

    @property
    def kills(self) -> int:
        return sum(p.killed for p in self.procs)

    def close(self) -> None:
        for proc in self.procs:
            if proc.popen.poll() is None:
                proc.popen.kill()
            proc.popen.wait()


def profile_jobs(folder: Path, round_no: int, per_model: int) -> list[Job]:
    """Distinct profiles (the example's network, its own measurements each), per model."""
    jobs = []
    folder.mkdir(parents=True, exist_ok=True)
    for m, model in enumerate("ab"):
        for i in range(per_model):
            path = write_run(folder / f"{model}-{round_no}-{i}.txt", 1.0 + 0.05 * i, 1000 * round_no + 10 * m + i + 1)
            jobs.append(Job(model, (path,), path))
    return jobs


def ir_jobs(vgg16) -> list[Job]:
    return [Job(model, (vgg16["relay"], vgg16["tasks"])) for model in "ab"]


@dataclass
class Churn:
    fleet: Fleet
    rounds: int
    profiles: list[Job]
    samples: list
    reader_errors: list


def churn(tmp_path: Path, lake: str, env: dict, vgg16, *, rounds: int, per_model: int, compactions: int,
          kills: int = 0, seed: int = 0) -> Churn:
    """The workload: `rounds` rounds (more, with `kills`, until that many processes were
    killed), the reader running throughout. A killed writer's command is run again until
    it exits 0, as a user would; a killed compaction is left (the next one goes on)."""
    rng = random.Random(seed)
    fleet = Fleet(tmp_path / "logs", env, rng)
    stop, samples_file = tmp_path / "reader.stop", tmp_path / "reader.json"
    chance = KILL_CHANCE if kills else 0.0
    profiles: list[Job] = []
    round_no = 0
    try:
        reader = fleet.start("reader", ["-c", READER, lake, stop, samples_file])
        while round_no < rounds or (fleet.kills < kills and round_no < rounds + 4 * kills):
            round_no += 1
            jobs = ir_jobs(vgg16) + profile_jobs(tmp_path / "profiles", round_no, per_model)
            profiles += [j for j in jobs if j.profile]
            rng.shuffle(jobs)
            for job in jobs:
                fleet.hotdb("writer", job.args(lake), job=job, kill_chance=chance)
            # compactions need a commit log: in the first round they start once a writer made it
            pending = compactions
            if round_no > 1:
                for _ in range(pending):
                    fleet.hotdb("compact", ["lake", "compact", lake], kill_chance=chance)
                pending = 0
            while pending or any(p.ended is None for p in fleet.procs if p.kind != "reader"):
                for proc in fleet.step():
                    if proc.kind != "writer":
                        continue
                    if proc.killed:  # the user runs the same command again
                        fleet.hotdb("writer", proc.job.args(lake), job=proc.job, attempt=proc.attempt + 1,
                                    kill_chance=chance if proc.attempt < KILLED_AT_MOST else 0.0)
                    elif proc.code == 0 and pending:
                        for _ in range(pending):
                            fleet.hotdb("compact", ["lake", "compact", lake], kill_chance=chance)
                        pending = 0
                if pending and not fleet.running("writer"):
                    break  # no writer succeeded: nothing to compact; the checks below say why
        stop.touch()
        while reader.ended is None:
            fleet.step()
        read = json.loads(samples_file.read_text()) if samples_file.exists() else {"samples": [], "errors": []}
        return Churn(fleet, round_no, profiles, read["samples"], read["errors"])
    finally:
        fleet.close()


# -- the checks ----------------------------------------------------------------------------
def _tail(proc: Proc) -> str:
    hung = f" (hung: killed after {HUNG_S} s)" if proc.hung else ""
    return f"{proc.kind} {' '.join(map(str, proc.popen.args[1:]))[-160:]} -> {proc.code}{hung}:\n{proc.stderr()[-1500:]}"


def check_processes(run: Churn) -> None:
    """Every process exited 0 unless the test killed it, and none printed a traceback."""
    failed = [_tail(p) for p in run.fleet.procs if not p.killed and p.code != 0]
    assert not failed, "\n\n".join(failed)
    traced = [_tail(p) for p in run.fleet.procs if "Traceback" in p.stderr()]
    assert not traced, "\n\n".join(traced)
    assert not run.reader_errors, "\n".join(run.reader_errors[:3])


def final_writes(run: Churn) -> list[Proc]:
    """Each profile job's attempt that exited 0 (its last)."""
    return [p for p in run.fleet.procs if p.kind == "writer" and p.job.profile and p.code == 0]


def check_reads(run: Churn) -> None:
    """Whole, single runs only (no node twice); never fewer than a read before, nor than the profile
    writers that had ended before the read began; the last read (after all) sees all."""
    samples = run.samples
    assert samples, "the reader recorded no read"
    ends = sorted(p.ended for p in final_writes(run))
    for began, _, runs, labels, empty, doubled in samples:
        assert runs == labels, f"a read saw a run label twice: {runs} runs, {labels} labels"
        assert empty == 0, f"a read saw {empty} runs without their nodes (part of an ingest)"
        assert doubled == 0, f"a read saw {doubled} nodes twice"
        before = sum(1 for end in ends if end < began)
        assert runs >= before, f"a read that began after {before} profile writers had ended saw {runs} runs"
    counts = [s[2] for s in samples]
    assert counts == sorted(counts), f"the reader saw runs disappear: {counts}"
    assert counts[-1] == len(run.profiles)


def stored(reader) -> list[dict]:
    """Each stored run with its model, its total time and the content of its file."""
    return reader.sql("""
        SELECT r.label, m.name AS model, s.format, s.content_sha256 AS sha,
               (SELECT round(sum(n.time_us), 3) FROM node_calls AS n WHERE n.run_id = r.run_id) AS total,
               (SELECT count(*) FROM node_calls AS n WHERE n.run_id = r.run_id) AS nodes,
               (SELECT count(DISTINCT n.node_index) FROM node_calls AS n WHERE n.run_id = r.run_id) AS node_indexes
        FROM runs AS r JOIN models AS m USING (model_id) LEFT JOIN sources AS s USING (source_id)
        ORDER BY m.name, r.label""").records()


def check_each_profile_once(run: Churn, reader) -> list[dict]:
    """One run per profile, labels unique and numbered 1..n per model, each file's content
    stored once, each total time once."""
    runs = stored(reader)
    labels = [r["label"] for r in runs]
    assert len(labels) == len(set(labels)) == len(run.profiles), sorted(labels)
    for model in "ab":
        want = sum(1 for j in run.profiles if j.model == model)
        assert sorted(r["label"] for r in runs if r["model"] == model) == sorted(f"{model}-{i}" for i in range(1, want + 1))
    shas = Counter(r["sha"] for r in runs)
    assert shas == Counter(hashlib.sha256(j.profile.read_bytes()).hexdigest() for j in run.profiles)
    assert all(r["format"] == "debug-table" for r in runs)
    assert all(r["nodes"] == r["node_indexes"] > 0 for r in runs), [(r["label"], r["nodes"], r["node_indexes"]) for r in runs]
    totals = Counter((r["model"], r["total"]) for r in runs)
    assert len(totals) == len(runs), [k for k, n in totals.items() if n > 1]
    sources = reader.sql("SELECT format, count(*) AS n FROM sources GROUP BY format").records()
    assert {s["format"]: s["n"] for s in sources} == {"debug-table": len(run.profiles), "relay": 2, "autotvm-tasks": 2}
    return runs


def check_writers_said(run: Churn, runs: list[dict]) -> None:
    """Without kills: each profile writer said the run it made, and those are the runs."""
    said = []
    for proc in final_writes(run):
        found = re.findall(r"^model \S+, run (\S+)$", proc.stderr(), re.M)
        assert len(found) == 1, proc.stderr()
        said += found
    assert sorted(said) == sorted(r["label"] for r in runs)


def content(reader) -> dict:
    """Per run, keyed by what it is (model, total time): its nodes, its tasks ranked, each
    node's match; and per model its tasks (concurrent writers may number runs in either order)."""
    runs = {r["run_id"]: (r["model"], r["total"], r["nodes"]) for r in reader.sql("""
        SELECT r.run_id, m.name AS model, round(sum(n.time_us), 3) AS total, count(n.node_index) AS nodes
        FROM runs AS r JOIN models AS m USING (model_id) LEFT JOIN node_calls AS n USING (run_id)
        GROUP BY ALL""").records()}
    tops, matches = {}, {}
    for r in reader.sql("SELECT run_id, rank, workload_key, task_name, round(time_us, 3) AS t FROM task_times").records():
        tops.setdefault(r["run_id"], []).append((r["rank"], r["workload_key"], r["task_name"], r["t"]))
    for r in reader.sql("""SELECT run_id, node_index, func_name, method, workload_key, task_name,
                                  round(confidence, 6) AS c FROM node_matches""").records():
        matches.setdefault(r["run_id"], []).append((r["node_index"], r["func_name"], r["method"], r["workload_key"],
                                                    r["task_name"], r["c"]))
    out = {(model, total): (nodes, sorted(tops.get(i, [])), sorted(matches.get(i, [])))
           for i, (model, total, nodes) in runs.items()}
    assert len(out) == len(runs)
    tasks = reader.sql("""SELECT m.name AS model, count(*) AS n FROM model_tasks AS t JOIN models AS m USING (model_id)
                          GROUP BY ALL""").records()
    out["tasks"] = sorted((t["model"], t["n"]) for t in tasks)
    return out


def serial_database(path: Path, run: Churn, vgg16) -> Path:
    """A database file that received the same ingests one at a time."""
    for job in ir_jobs(vgg16) + run.profiles:
        here("--db", path, "ingest", *job.files, "--model", job.model)
    return path


def delta_rows(lake: Path) -> tuple[int, int]:
    """(rows of commits that never landed, Parquet files no version refers to), over the tables."""
    from deltalake import DeltaTable

    committed = set(DeltaTable(str(lake / "_commits")).to_pyarrow_table(columns=["commit_id"])["commit_id"].to_pylist())
    orphans = unreferenced = 0
    for folder in sorted(p for p in lake.iterdir() if (p / "_delta_log").is_dir() and p.name != "_commits"):
        table = DeltaTable(str(folder))
        ids = table.to_pyarrow_table(columns=["lake_commit"])["lake_commit"].to_pylist()
        orphans += sum(1 for c in ids if c not in committed)
        files = {Path(f).name for f in table.file_uris()}
        unreferenced += sum(1 for f in folder.glob("*.parquet") if f.name not in files)
    return orphans, unreferenced


def figures(name: str, run: Churn, **more) -> None:
    counts = [s[2] for s in run.samples]
    compacts = [p.stderr() for p in run.fleet.procs if p.kind == "compact" and p.code == 0]
    deleted = sum(int(m) for e in compacts for m in re.findall(r"rows of (\d+) unfinished commits deleted", e))
    merged = sum(int(m) for e in compacts for m in re.findall(r"(\d+) files merged or removed", e))
    writers = [p for p in run.fleet.procs if p.kind == "writer"]
    wall = max(p.ended for p in run.fleet.procs) - min(p.started for p in run.fleet.procs)
    print(f"\n{name}: {run.rounds} rounds, {len(run.profiles)} runs, {len(writers)} writer processes, "
          f"{sum(p.kind == 'compact' for p in run.fleet.procs)} compactions ({deleted} unfinished commits' rows "
          f"deleted, {merged} files merged or removed), {run.fleet.kills} kills ("
          f"{sum(p.killed for p in run.fleet.procs if p.kind == 'compact')} of compactions), {len(counts)} reads seeing "
          f"{min(counts, default=None)}..{max(counts, default=None)} runs, {wall:.0f} s"
          + "".join(f", {k} {v}" for k, v in more.items()))


def environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOTDB_LAKE", "HOTDB_FAILPOINT"))}
    return {**env, **extra}


# -- the tests -----------------------------------------------------------------------------
@pytest.mark.parametrize("retention", [None, "5"], ids=["rounds", "rounds-retention-5s"])
def test_writers_compactions_and_a_reader_at_once_lose_and_double_nothing(tmp_path, vgg16, retention, monkeypatch):
    """With HOTDB_LAKE_RETENTION=5 (recorded in the lake by the first compaction),
    compactions delete the rows of lost attempts (writers that redid their ingest) while
    writers run: nothing committed may be lost for it."""
    extra = {"HOTDB_LAKE_RETENTION": retention} if retention else {}
    lake = tmp_path / "lake"
    lake.mkdir()  # an empty folder: the reader reads no run until the first commit
    run = churn(tmp_path, str(lake), environment(**extra), vgg16, rounds=ROUNDS, per_model=3, compactions=2)
    check_processes(run)
    check_reads(run)
    from hotdb.api import Hotdb

    runs = check_each_profile_once(run, Hotdb(lake=lake))
    check_writers_said(run, runs)
    more = {}
    if retention:
        # what never landed: marked by a compaction, abandoned and deleted by the next
        before = delta_rows(lake)
        time.sleep(float(retention) + 1.5)
        for key, value in extra.items():
            monkeypatch.setenv(key, value)
        assert "compacted" in here("lake", "compact", lake).stderr
        assert "compacted" in here("lake", "compact", lake).stderr
        after = delta_rows(lake)
        assert after[0] == 0, f"{after[0]} rows of commits that never landed are left"
        assert check_each_profile_once(run, Hotdb(lake=lake)) == runs
        more = {"orphan rows before/after a last compaction": f"{before[0]}/{after[0]}",
                "unreferenced files before/after": f"{before[1]}/{after[1]}"}
    figures(f"rounds (retention {retention or 'default'})", run, **more)


def test_writers_and_compactions_killed_at_random_instants_lose_and_double_nothing(tmp_path, vgg16):
    """SIGKILLs land uniformly within 3 s of a writer's or a compaction's start; each
    killed writer's command is run again until it exits 0. Then a compaction exits 0, each
    profile is stored once, and every view agrees with a database file that received the
    same ingests one at a time."""
    lake = tmp_path / "lake"
    lake.mkdir()
    env = environment(HOTDB_LAKE_AUTO_COMPACT="6")  # writers compact too, and are killed doing it
    run = churn(tmp_path, str(lake), env, vgg16, rounds=1, per_model=3, compactions=2, kills=KILLS, seed=KILLS)
    check_processes(run)
    assert run.fleet.kills >= KILLS
    check_reads(run)
    final = subprocess.run([sys.executable, "-m", "hotdb", "lake", "compact", str(lake)], capture_output=True, text=True,
                           env=env)
    assert final.returncode == 0 and "Traceback" not in final.stderr, final.stderr
    from hotdb.api import Hotdb

    check_each_profile_once(run, Hotdb(lake=lake))
    database = serial_database(tmp_path / "serial.duckdb", run, vgg16)
    assert content(Hotdb(lake=lake)) == content(Hotdb(database))
    figures("kills", run, **{"orphan rows, unreferenced files": delta_rows(lake)})


def test_writers_a_compaction_and_a_reader_at_once_on_s3(tmp_path, vgg16, s3_server, monkeypatch):
    lake = f"{s3_server['uri']}/lake-{uuid.uuid4().hex[:8]}"
    env = environment(**s3_server["env"])
    run = churn(tmp_path, lake, env, vgg16, rounds=1, per_model=1, compactions=1)
    check_processes(run)
    check_reads(run)
    for key, value in s3_server["env"].items():
        monkeypatch.setenv(key, value)
    from hotdb.api import Hotdb

    runs = check_each_profile_once(run, Hotdb(lake=lake))
    check_writers_said(run, runs)
    database = serial_database(tmp_path / "serial.duckdb", run, vgg16)
    assert content(Hotdb(lake=lake)) == content(Hotdb(database))
    figures("s3", run)
