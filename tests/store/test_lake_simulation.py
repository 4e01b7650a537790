"""A deterministic simulation of many actors on one lake (FoundationDB's and TigerBeetle's
way): writers, compactions, readers, `lake export` and `lake import`, each hotdb's own
code running in a thread of this process, stopped at every failpoint it reaches
(hotdb/failpoints.py: every commit, append, rewrite and vacuum of the lake, and the steps
between). A seeded scheduler picks which actor takes its next step, and at each step may
kill it (it writes nothing more, as after SIGKILL), pause it past the lake's retention,
fail its next write as a full disk would, skew its clock by up to two hours, or let a
compaction lose its lease to a newer one; actors are told apart as processes of two PID
namespaces of one host name. Time is the scheduler's: the clock hotdb reads and the
store's clock (when each claim landed) advance a second a step, and by the length of a
pause.

After every schedule, the killed and failed writers are run again without faults (what
a CI job's retry does) and the lake compacted; then the invariants: every writer that
said it stored its run has it exactly once, with its totals; no run is there that no
writer wrote; no row is doubled; every read saw whole runs only, never fewer than had
been stored before it began; every export holds whole runs; nothing outside the lake and
the exports changed; and the lake takes a new ingest.

CI runs HOTDB_SIM_SCHEDULES schedules (default 200), split between HOTDB_SIM_PROCESSES
processes (default: 2 where the machine has 2 cores; the rest of the suite runs on one);
the sweep of the issue's must-show:

    HOTDB_SIM_SCHEDULES=5000 python -m pytest -q -s tests/store/test_lake_simulation.py -p no:cacheprovider

A failing schedule names its seed: HOTDB_SIM_SEED=<seed> runs it alone."""

from __future__ import annotations

import errno
import functools
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import DATA, die_with_parent, write_run

SCHEDULES = int(os.environ.get("HOTDB_SIM_SCHEDULES") or 200)
FIRST_SEED = int(os.environ.get("HOTDB_SIM_FIRST_SEED") or 0)  # sweeps in parallel take ranges of their own
ONE_SEED = os.environ.get("HOTDB_SIM_SEED")
PROCESSES = int(os.environ.get("HOTDB_SIM_PROCESSES") or min(2, os.cpu_count() or 1))
LEGACY_SHARE = 0.15  # schedules that start from a lake of hotdb 0.2's layout, with a `lake convert` among the actors
STEP_S = 1.0  # the world's clock advances this much each step
RETENTION_S = 4.0  # the lake's retention in most schedules: a pause past it is a few steps
WRITES = {"delta-append", "delta-claim", "compact-rewrite", "delta-vacuum"}
RUNS_QUERY = """SELECT r.label, count(c.node_index) AS nodes, round(sum(c.time_us), 3) AS us
                FROM runs AS r LEFT JOIN node_calls AS c USING (run_id) GROUP BY 1 ORDER BY 1"""


class Killed(BaseException):
    """The actor's process is gone: raised at its every later step, so it writes nothing."""


@dataclass
class Actor:
    name: str
    kind: str
    work: object
    skew_s: float = 0.0
    namespace: str = "pidns-a"
    retention_s: float | None = None
    go: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    state: str = "new"  # parked, done, failed, killed
    at: str = ""
    steps: int = 0
    kill: bool = False
    disk_full: bool = False
    paused_until: int = -1
    result: object = None
    error: str = ""
    began_after: set = field(default_factory=set)  # writers done before a reader's first step


class Simulation:
    def __init__(self, seed: int, lake: Path, profiles: dict, expected: dict, imported: Path, work: Path):
        self.seed, self.rng = seed, random.Random(seed)
        self.lake, self.profiles, self.expected, self.imported, self.work = lake, profiles, expected, imported, work
        self.clock = 1_900_000_000.0  # the world's time (2030): hotdb's clock and the store's
        self.landed_at: dict[str, float] = {}  # claim -> when the store took it
        self.actors: list[Actor] = []
        self.done = threading.Semaphore(0)
        self.by_thread: dict[int, Actor] = {}
        self.running: Actor | None = None
        self.log: list[str] = []

    # -- the actors' side ------------------------------------------------------------------
    def hook(self, name: str) -> None:
        actor = self.by_thread.get(threading.get_ident())
        if actor is None or self.running is not actor:
            return  # not an actor (the test's own setup and checks)
        if actor.state == "killed":
            raise Killed()
        actor.at, actor.steps = name, actor.steps + 1
        actor.state = "parked"
        self.done.release()
        actor.go.acquire()
        if actor.kill:
            actor.state = "killed"
            raise Killed()
        if actor.disk_full and name in WRITES:
            actor.disk_full = False
            raise OSError(errno.ENOSPC, "No space left on device (simulated)", str(self.lake))

    def _body(self, actor: Actor) -> None:
        self.by_thread[threading.get_ident()] = actor
        actor.go.acquire()
        try:
            actor.result = actor.work()
            actor.state = "done"
        except Killed:
            actor.state = "killed"
        except Exception as exc:  # noqa: BLE001 - an actor's error is an outcome the checks judge
            actor.state, actor.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            self.done.release()

    # -- the world's side -----------------------------------------------------------------
    def now(self) -> float:
        return self.clock + (self.running.skew_s if self.running is not None else 0.0)

    def step(self, actor: Actor) -> None:
        self.running = actor
        if actor.retention_s is None:
            os.environ.pop("HOTDB_LAKE_RETENTION", None)
        else:
            os.environ["HOTDB_LAKE_RETENTION"] = f"{actor.retention_s:g}"
        if actor.kind == "reader" and actor.steps == 0:
            actor.began_after = {"imp-1" if a.kind == "import" else a.name for a in self.actors
                                 if a.kind in ("writer", "import") and a.state == "done"}
        actor.go.release()
        if not self.done.acquire(timeout=300):
            raise AssertionError(f"seed {self.seed}: {actor.name} took no step within 300 s (at {actor.at})")
        self.running = None
        self.clock += STEP_S

    def run(self) -> None:
        threads = []
        for actor in self.actors:
            thread = threading.Thread(target=self._body, args=(actor,), daemon=True)
            thread.start()
            threads.append(thread)
        tick = 0
        while True:
            live = [a for a in self.actors if a.state in ("new", "parked")]
            if not live:
                break
            ready = [a for a in live if a.paused_until <= tick] or live
            actor = self.rng.choice(ready)
            self.fault(actor, tick)
            self.log.append(f"{tick} {actor.name}@{actor.at or 'start'}{' KILL' if actor.kill else ''}")
            self.step(actor)
            tick += 1
        for thread in threads:
            thread.join(timeout=60)

    def fault(self, actor: Actor, tick: int) -> None:
        if actor.state != "parked":
            return
        roll = self.rng.random()
        if roll < 0.04 and actor.kind != "reader":
            actor.kill = True
        elif roll < 0.10:
            actor.paused_until = tick + self.rng.randint(2, 6)
            self.clock += (self.profile_retention() + 1) * self.rng.random() * 2  # the world goes on meanwhile
        elif roll < 0.13 and actor.at in WRITES:
            actor.disk_full = True
        elif roll < 0.16 and actor.kind == "compact":
            self.lose_lease()

    def profile_retention(self) -> float:
        return RETENTION_S

    def lose_lease(self) -> None:
        """A newer compaction, on another host, takes the lake over and finishes: whoever
        holds the lease now is superseded."""
        from hotdb.store import delta
        from hotdb.store.lake import Lake, new_commit_id

        lake = Lake(self.lake)
        log = delta.open_table(lake.uri(delta.COMMITS))
        leases = [int(c.partition(":")[2].split()[0]) for c in _lake_claim_texts(lake, log) if c.startswith("compact:")]
        number = max(leases, default=0) + 1
        try:
            delta.claim(log, new_commit_id(), 0, [f"compact:{number} elsewhere~0~0.1.1", f"compacted:{number}"])
            self.log.append(f"lease {number} taken elsewhere")
        except delta.Conflict:
            pass


def _lake_claim_texts(lake, log) -> list[str]:
    import duckdb

    with duckdb.connect() as con:
        con.register("log", log.to_pyarrow_dataset())
        return [r[0] for r in con.execute("SELECT claim FROM log WHERE model_id = 0").fetchall()]


# -- the world patched: hotdb's clock, the store's clock, the failpoints ------------------
@pytest.fixture
def world(monkeypatch):
    from hotdb import failpoints
    from hotdb.store import delta

    holder: dict = {}
    real_claim = delta.claim

    def claim(snapshot, commit_id, model_id, claims):
        version = real_claim(snapshot, commit_id, model_id, claims)
        sim = holder.get("sim")
        if sim is not None:
            for key in claims:
                sim.landed_at[key] = sim.clock
        return version

    def store_times(table, claims):
        sim = holder["sim"]
        return {c: sim.landed_at[c] for c in claims if c in sim.landed_at}, max(sim.landed_at.values(), default=0.0)

    def owner():  # an actor is a process of its own, in one of two PID namespaces of one host name
        sim = holder["sim"]
        actor = sim.running
        return f"sim~{actor.namespace if actor else 'checks'}.{sim.actors.index(actor) if actor else 0}.1"

    def alive(owner):  # known only within its own namespace, as /proc tells a process
        sim, parts = holder["sim"], owner.split(".")
        observer = sim.running
        if len(parts) != 3 or observer is None or parts[0] != f"sim~{observer.namespace}":
            return None
        return sim.actors[int(parts[1])].state in ("new", "parked")

    monkeypatch.setattr(delta, "claim", claim)
    if hasattr(delta, "store_times"):  # (the code before issue 43 read no store clock)
        from hotdb.store import lake_compact

        monkeypatch.setattr(delta, "store_times", store_times)
        monkeypatch.setattr(lake_compact, "this_owner", owner)
        monkeypatch.setattr(lake_compact, "alive", alive)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: holder["sim"].now() if holder.get("sim") else real_time())
    failpoints.install(lambda name: holder["sim"].hook(name) if holder.get("sim") else None)
    monkeypatch.setenv("HOTDB_LOCK_TIMEOUT", "600")
    yield holder
    failpoints.install(None)


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    """The lake every schedule starts from (one run of a model; its IR and tasks too when
    HOTDB_SIM_IR is set: a third slower, the matching exercised), four profiles and their
    totals as a database file stores them, and a database to import."""
    from hotdb.api import Hotdb
    from hotdb.examples import example_files

    root = tmp_path_factory.mktemp("sim")
    files = {Path(f).name.split(".", 1)[1]: Path(f) for f in example_files("vgg16")}
    base = root / "base"
    ir = [files["relay.txt"], files["autotvm_tasks.txt"]] if os.environ.get("HOTDB_SIM_IR") else []
    if ir:
        Hotdb(lake=base).ingest(ir, model="m")
    Hotdb(lake=base).ingest([files["debug_table.txt"]], model="m", run="r0")
    profiles = {f"w{i}": write_run(root / f"w{i}.txt", 1.0 + i / 10, 100 + i) for i in range(4)}
    reference = Hotdb(root / "reference.duckdb")
    if ir:
        reference.ingest(ir, model="m")
    reference.ingest([files["debug_table.txt"]], model="m", run="r0")
    for label, path in profiles.items():
        reference.ingest([path], model="m", run=label)
    profiles_after = write_run(root / "after.txt", 2.0, 999)
    imported = root / "import.duckdb"
    Hotdb(imported).ingest([files["debug_table.txt"], files["relay.txt"]], model="imp", run="imp-1")
    expected = {r["label"]: (r["nodes"], r["us"]) for r in reference.sql(RUNS_QUERY).records()}
    legacy = root / "legacy"
    shutil.copytree(DATA / "lake-0.2" / "lake", legacy)
    legacy_runs = read_runs(legacy)
    expected["imp-1"] = {r["label"]: (r["nodes"], r["us"]) for r in Hotdb(imported).sql(RUNS_QUERY).records()}["imp-1"]
    return {"base": base, "profiles": profiles, "expected": expected, "imported": imported, "after": profiles_after,
            "legacy": legacy, "legacy_runs": legacy_runs}


def read_runs(lake) -> dict:
    """Each run's nodes and time, as a command reads them (hotdb sql, which may open no file,
    cannot read a lake of hotdb 0.2's layout)."""
    from hotdb.store.lake import Lake

    with Lake(lake).reader() as store:
        return {label: (nodes, us) for label, nodes, us in store.con.execute(RUNS_QUERY).fetchall()}


def cast(sim: Simulation) -> None:
    """The actors of a schedule, drawn from its seed."""
    from hotdb.api import Hotdb
    from hotdb.store import lake_compact
    from hotdb.store.lake import Lake

    rng = sim.rng
    lake = str(sim.lake)
    labels = rng.sample(sorted(sim.profiles), rng.choice([1, 1, 2, 2, 3]))

    def writer(label):
        return lambda: Hotdb(lake=lake).ingest([sim.profiles[label]], model="m", run=label)

    def reader():
        return lambda: read_runs(lake)

    def exporter(n):
        folder = sim.work / f"export-{n}"
        return lambda: (folder, Lake(lake).export_parquet(folder))

    for label in labels:
        sim.actors.append(Actor(label, "writer", writer(label)))
    for n in range(rng.randint(1, 2)):
        retention = rng.choice([None, RETENTION_S, RETENTION_S, 0.0, 5.0])
        sim.actors.append(Actor(f"compact{n}", "compact", functools.partial(lake_compact.compact, Lake(lake)),
                                retention_s=retention))
    for n in range(rng.choice([0, 1, 1, 2])):
        sim.actors.append(Actor(f"reader{n}", "reader", reader()))
    if rng.random() < 0.25:
        sim.actors.append(Actor("export", "export", exporter(0)))
    if rng.random() < 0.25:
        sim.actors.append(Actor("import", "import", lambda: Hotdb(sim.imported).lake_import(lake)))
    if "r0" not in sim.stored:  # a lake of hotdb 0.2: converted while the others try it
        sim.actors.append(Actor("convert", "convert", lambda: Hotdb().lake_convert(lake)))
    for actor in sim.actors:
        actor.skew_s = rng.choice([0.0, 0.0, 7200.0, -7200.0, rng.uniform(-7200, 7200)])
        actor.namespace = rng.choice(["pidns-a", "pidns-b"])
    if rng.random() < 0.5:
        os.environ["HOTDB_LAKE_AUTO_COMPACT"] = str(rng.choice([2, 3, 4]))  # writers compact too
    else:
        os.environ.pop("HOTDB_LAKE_AUTO_COMPACT", None)


def files_outside(roots: list[Path], skip: Path) -> dict:
    """Every file under `roots` but those under `skip` (the schedule's lake and exports),
    with its modification time: what the actors may read and must not change."""
    return {str(p): p.stat().st_mtime_ns for root in roots for p in root.rglob("*")
            if p.is_file() and skip not in p.parents}


def check(sim: Simulation) -> None:
    """The invariants, after the retries and compactions that follow every schedule."""
    from hotdb.api import Hotdb
    from hotdb.errors import UsageError
    from hotdb.store import lake_compact
    from hotdb.store.lake import Lake

    where = f"seed {sim.seed}: " + " ".join(sim.log[-60:])
    lake = str(sim.lake)
    os.environ.pop("HOTDB_LAKE_AUTO_COMPACT", None)
    if any(a.kind == "convert" and a.state != "done" for a in sim.actors):  # run again after a kill: it goes on
        try:
            Hotdb().lake_convert(lake)
        except UsageError as exc:
            assert "nothing to convert" in str(exc), f"{where}: {exc}"
    for actor in sim.actors:  # what a CI job's retry does: the same ingest again, no fault
        if actor.kind == "writer" and actor.state != "done":
            Hotdb(lake=lake).ingest([sim.profiles[actor.name]], model="m", run=actor.name)
    os.environ["HOTDB_LAKE_RETENTION"] = "0"  # what never landed is abandoned and deleted at once
    compacted = lake_compact.compact(Lake(lake))
    os.environ.pop("HOTDB_LAKE_RETENTION", None)
    assert "busy" not in compacted, f"{where}: the lake is left leased to {compacted['busy']}"
    with Lake(lake).reader() as store:  # one read for every check
        final = {label: (nodes, us) for label, nodes, us in store.con.execute(RUNS_QUERY).fetchall()}
        labels = [r[0] for r in store.con.execute("SELECT label FROM runs").fetchall()]
        doubled = store.con.execute("SELECT count(*) FROM (SELECT run_id, node_index FROM node_calls "
                                    "GROUP BY ALL HAVING count(*) > 1)").fetchall()[0][0]
    assert len(labels) == len(set(labels)), f"{where}: a run listed twice: {sorted(labels)}"
    writers = {a.name for a in sim.actors if a.kind == "writer"}
    imports = [a for a in sim.actors if a.kind == "import"]
    expected = {**sim.expected, **sim.stored}
    allowed = set(sim.stored) | writers | ({"imp-1"} if imports else set())
    assert set(final) <= allowed, f"{where}: runs no writer wrote: {set(final) - allowed}"
    for label in set(sim.stored) | writers | ({"imp-1"} if any(a.state == "done" for a in imports) else set()):
        assert final.get(label) == expected[label], f"{where}: {label} stored as {final.get(label)}, " \
                                                    f"expected {expected[label]}"
    assert doubled == 0, f"{where}: {doubled} rows doubled"
    for actor in sim.actors:
        if actor.kind == "reader" and actor.state == "done":
            seen = actor.result
            for label, totals in seen.items():
                assert totals == expected.get(label), f"{where}: {actor.name} saw {label} as {totals}"
            missing = (actor.began_after | set(sim.stored)) - set(seen)
            assert not missing, f"{where}: {actor.name} began after {missing} were stored, and missed them"
        if actor.kind == "export" and actor.state == "done":
            folder, counts = actor.result
            assert counts["runs"] <= len(final)
        if actor.kind == "writer" and actor.state == "done" and actor.result.nothing_new:
            assert actor.name in final
    if sim.seed % 10 == 0:  # the lake takes a new ingest (every tenth schedule: an ingest is most of a check)
        Hotdb(lake=lake).ingest([sim.after], model="m", run="after")
        assert "after" in {r["label"] for r in Hotdb(lake=lake).sql("SELECT label FROM runs").records()}


def schedule(seed: int, stage: dict, world: dict, tmp: Path) -> Simulation:
    work = tmp / f"s{seed}"
    work.mkdir()
    lake = work / "lake"
    legacy = random.Random(f"legacy {seed}").random() < LEGACY_SHARE
    shutil.copytree(stage["legacy"] if legacy else stage["base"], lake)
    watched = [tmp, stage["base"].parent]  # this test's folders, and the inputs every schedule reads
    before = files_outside(watched, work)
    sim = Simulation(seed, lake, stage["profiles"], stage["expected"], stage["imported"], work)
    sim.after = stage["after"]
    sim.stored = dict(stage["legacy_runs"]) if legacy else {"r0": stage["expected"]["r0"]}  # there before it began
    world["sim"] = sim
    try:
        cast(sim)
        began = time.monotonic()
        sim.run()
        sim.run_s = time.monotonic() - began
        os.environ.pop("HOTDB_LAKE_RETENTION", None)
        sim.clock += 10 * RETENTION_S  # the checks come later: every lease of a killed actor has run out
        check(sim)
        sim.check_s = time.monotonic() - began - sim.run_s
    finally:
        world["sim"] = None
        os.environ.pop("HOTDB_LAKE_RETENTION", None)
    after = files_outside(watched, work)
    assert after == before, f"seed {seed}: files outside the lake changed: {set(after) ^ set(before)}"
    shutil.rmtree(work, ignore_errors=True)
    return sim


def _helpers(seeds: list[int], folder: Path) -> list[tuple[subprocess.Popen, Path]]:
    """The schedules past this process's share, each share run by a pytest process of its
    own (killed with this one, however it ends), its log and temporary files in `folder`:
    outside the folders the schedules watch."""
    share = -(-len(seeds) // PROCESSES)
    started = []
    for n in range(1, PROCESSES):
        part = seeds[n * share:(n + 1) * share]
        if not part:
            break
        log = folder / f"helper-{n}.log"
        env = {**os.environ, "HOTDB_SIM_FIRST_SEED": str(part[0]), "HOTDB_SIM_SCHEDULES": str(len(part)),
               "HOTDB_SIM_PROCESSES": "1"}
        with log.open("w") as out:
            started.append((subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                                              f"{__file__}::test_the_lake_holds_over_seeded_schedules",
                                              "--basetemp", str(folder / f"helper-{n}")],
                                             stdout=out, stderr=subprocess.STDOUT, env=env, cwd=Path(__file__).parents[2],
                                             preexec_fn=die_with_parent), log))
    return started


def test_the_lake_holds_over_seeded_schedules(tmp_path, stage, world):
    seeds = [int(ONE_SEED)] if ONE_SEED else list(range(FIRST_SEED, FIRST_SEED + SCHEDULES))
    folder = Path(tempfile.mkdtemp(prefix="hotdb-simulation-"))
    helpers = _helpers(seeds, folder) if len(seeds) > 1 and PROCESSES > 1 else []
    if helpers:
        seeds = seeds[:-(-len(seeds) // PROCESSES)]
    try:
        _run_schedules(seeds, tmp_path, stage, world)
        for helper, log in helpers:
            helper.wait()
            said = log.read_text(errors="replace")
            print(said, flush=True)
            assert helper.returncode == 0, said[-4000:]
    finally:
        for helper, _ in helpers:
            if helper.poll() is None:
                helper.kill()
                helper.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _run_schedules(seeds: list[int], tmp_path: Path, stage: dict, world: dict) -> None:
    kills = steps = run_s = check_s = 0
    failures = []
    for seed in seeds:
        try:
            sim = schedule(seed, stage, world, tmp_path)
        except AssertionError as exc:  # every schedule runs; the failures are said together (and at once, with -s)
            failures.append(str(exc).split("\n")[0])
            print(f"FAILED {failures[-1][:2000]}", flush=True)
            continue
        kills += sum(a.state == "killed" for a in sim.actors)
        steps += len(sim.log)
        run_s, check_s = run_s + sim.run_s, check_s + sim.check_s
        if (seed - seeds[0] + 1) % 100 == 0:  # a sweep's progress, for one that is stopped
            print(f"{seed - seeds[0] + 1} schedules (seeds {seeds[0]}..{seed}), {len(failures)} failed", flush=True)
    print(f"{len(seeds)} schedules (seeds {seeds[0]}..{seeds[-1]}), {steps} steps, {kills} actors killed; "
          f"{run_s:.0f} s in schedules, {check_s:.0f} s in the checks; {len(failures)} failed")
    assert not failures, "\n".join(f[:160] + " ... " + f.rpartition(":")[2][:200] for f in failures)
