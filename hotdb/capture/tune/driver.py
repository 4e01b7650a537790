"""MetaSchedule, as hotdb's tune drives it (hotdb/ops/tune.py says what is tuned and why).

The tune runs in a process of its own (capture/tune/process.py) under hotdb's task scheduler
(capture/tune/scheduler.py): it measures the selected tasks only, the hottest first, and
joins each batch as soon as it is measured, so records reach the work folder's JSON
database batch by batch. This process reads the tuner's events and says them, and stops
it with a signal at the deadline, at Ctrl-C, or when no batch comes back within what the
trial limits allow (a watchdog): a stop loses at most the batch in flight. Over an RPC
tracker it also watches the devices (capture/tune/runner.py: DeviceWatch): one that
leaves is named once, and the tracker's or the last device's loss stops the tuner. The
database is applied to the fused module with MetaScheduleApplyDatabase inside the target
and database context: re-running the pipeline on a fused module would silently apply
nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from hotdb import limits
from hotdb.capture.tune.builder import BUILD_WORKERS
from hotdb.rows import FAILED_RUN_SECS
from hotdb.wording import counted

RECORDS, WORKLOADS = "database_tuning_record.json", "database_workload.json"


@dataclass
class TunePlan:
    task_names: list[str]
    shares_pct: list[float]
    trials: int
    per_task_max: int
    untuned_us: list[float] = field(default_factory=list)  # each task's measured time per inference
    batches_before: list[int] = field(default_factory=list)  # each task's batches in the tune's earlier rounds
    stale_before: list[int] = field(default_factory=list)  # each task's batches in a row that found nothing (scheduler.py)
    build_timeout_s: float = 120.0  # hotdb/ops/tune.py says why
    run_timeout_s: float = 60.0
    # trials a batch: a stop loses the batch in flight, and a batch of 2 MLP trials took
    # 25-30 s here on fresh build workers (1-3 s on kept ones, capture/tune/builder.py, but one
    # slow candidate can take ~50 s), so with a deadline batches are of 2 (hotdb/ops/tune.py)
    batch_max: int = 64
    model: str = ""  # as the user gave it: the tuner process loads it again
    target: str | None = None  # as the user gave it (--target)
    warm: dict[str, list[str]] = field(default_factory=dict)  # task -> record lines to start from, best first
    cost_model: str | None = None  # the cost model file of this target (cost_model_path)
    rpc: dict | None = None  # measure on a tracker's devices: {"tracker", "key", "wait_s"} (capture/remote.py: Rpc)
    devices: list[str] = field(default_factory=list)  # the servers of the key when the round starts
    cc: str | None = None  # the cross compiler's path, for a target that is not this machine's


def trials_per_round(trials: int, tasks: int, per_task_max: int, batch_max: int = 64) -> int:
    """Trials a batch: a few per task, so that several batches land within the budget."""
    return max(2, min(batch_max, per_task_max, trials // (2 * tasks)))


def cost_model_path(target_json: str | None) -> str:
    """Where the cost model of a target is kept between tunes (the user's cache)."""
    digest = hashlib.sha256((target_json or "").encode()).hexdigest()[:16]
    return str(limits.cache_dir() / "cost-models" / f"xgb-{digest}.tar")


@dataclass
class TuneOutcome:
    """What a tune did, counted from its own records (not from MetaSchedule's summary)."""

    finished: bool  # False when stopped early (Ctrl-C, the deadline's kill, a failure)
    trials: int  # records this tune wrote
    valid: int  # of which measured a time (MetaSchedule marks a failed trial with 1e10 s)
    failures: dict[str, int]  # first line of each failure message -> trials that failed so
    first_failure: str | None  # the first failure message, up to the schedule MetaSchedule prints after it
    deadline_reached: bool = False  # it stopped for the deadline, not for the user
    stopped: str | None = None  # why the tuner stopped, in its scheduler's words
    cause: str | None = None  # why the tuner process failed, when it did
    warm_records: int = 0  # records seeded from other tunes
    longest_batch_s: float | None = None  # the longest batch, dispatch to join
    batches_s: float = 0.0  # every batch's seconds, dispatch to join, summed: the tune less the tuner's start
    devices: dict | None = None  # over RPC: trials measured and failed per server, the servers lost (runner.py)
    seconds: dict = field(default_factory=dict)  # MetaSchedule's profile of the job: part -> seconds
    batches: dict = field(default_factory=dict)  # task joined this tune -> its batches over the rounds (the scheduler's count)
    stale: dict = field(default_factory=dict)  # task joined this tune -> its batches in a row that found nothing
    batch: int = 0  # trials a batch: the scheduler stops a round with fewer left (scheduler.py: Policy.pick)
_TRIAL_ERROR = re.compile(r"\[Task #\d+: (?P<task>[^\]]+)\] Trial #(?P<trial>\d+): Error in (?P<stage>building|running):")
_LOG_LINE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \[")


def _cause_lines(body: list[str]) -> list[str]:
    """A trial error's own lines: MetaSchedule follows them with the whole candidate, its
    module as TVMScript and its schedule's trace (hundreds of lines), kept in the log."""
    lines = []
    for line in body:
        if line.startswith(("# from tvm.script", "@I.ir_module", "@T.prim_func")):
            break
        lines.append(line.strip())
    return lines


class _FailureWatch:
    """Reads MetaSchedule's per-task logs as they grow: the builder's and the runner's
    errors (MetaSchedule writes them there only), said through `notify` as they happen,
    the first few whole, then one line per kind with its count at the end."""

    SHOWN = 3

    def __init__(self, logs: Path, notify):
        self.logs, self.notify = logs, notify
        self.offsets = {p: p.stat().st_size for p in logs.glob("*.log")} if logs.is_dir() else {}
        self.failures: dict[str, int] = {}
        self.first: str | None = None
        self.count = 0
        self._pending: list[str] = []

    def poll(self) -> None:
        if not self.logs.is_dir():
            return
        for path in sorted(self.logs.glob("*task_*.log")):
            if "task_scheduler" in path.name:
                continue
            offset = self.offsets.get(path, 0)
            with path.open("r", encoding="utf-8", errors="replace") as f:
                f.seek(offset)
                text = f.read()
            whole = text[:text.rfind("\n") + 1]  # complete lines only
            self.offsets[path] = offset + len(whole.encode("utf-8"))
            for line in whole.splitlines():
                self._line(line)
        self._flush(final=False)

    def _line(self, line: str) -> None:
        if _LOG_LINE.match(line):
            self._flush(final=True)
            if _TRIAL_ERROR.search(line):
                self._pending = [line]
        elif self._pending:
            self._pending.append(line)

    def _flush(self, final: bool) -> None:
        if not self._pending or not final:
            return
        head, body = self._pending[0], [l for l in self._pending[1:] if l.strip()]
        self._pending = []
        match = _TRIAL_ERROR.search(head)
        message = "; ".join(_cause_lines(body)) or "(no message)"
        kind = f"error in {match['stage']}: {body[0].strip() if body else '(no message)'}"
        if any(line.strip() == "Subprocess terminated" for line in body[:3]):
            # PopenWorker's words for a worker that died under it (tvm/support/popen_pool.py)
            worker = "builder" if match["stage"] == "building" else "runner"
            kind = (f"error in {match['stage']}: a {worker} worker process died (killed, or it crashed); "
                    "MetaSchedule starts a new one for the next trial")
        self.failures[kind] = self.failures.get(kind, 0) + 1
        self.count += 1
        if self.first is None:
            self.first = message
        if self.notify and self.count <= self.SHOWN:
            self.notify(f"{match['task']} trial {match['trial']}: {kind}")

    def close(self) -> None:
        self.poll()
        self._flush(final=True)
        if self.notify and self.count > self.SHOWN:
            for kind, n in self.failures.items():
                self.notify(f"{n} failed trials in all: {kind}")


class Tuner:
    """The tuner process (capture/tune/process.py), started on first use and kept for the rounds
    of one tune: it and each of its build workers import MetaSchedule's tensor
    intrinsics once (capture/tune/intrinsics.py: ~8 s for a CPU target here, ~25 s with the
    GPUs'). A stop (deadline, Ctrl-C, a stall) ends it with every process it started;
    the next round starts another."""

    def __init__(self):
        self.child: subprocess.Popen | None = None
        self.buffer = b""

    def send(self, job: dict, log: Path) -> subprocess.Popen:
        if self.child is None or self.child.poll() is not None:
            self.close()
            with log.open("ab") as err:  # what it says before it opens the job's log itself
                self.child = subprocess.Popen([sys.executable, "-m", "hotdb.capture.tune.process"], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=err, start_new_session=True)
            os.set_blocking(self.child.stdout.fileno(), False)
            self.buffer = b""
        self.child.stdin.write(json.dumps(job).encode() + b"\n")
        self.child.stdin.flush()
        return self.child

    def close(self) -> None:
        """End the tuner and every process it started (MetaSchedule's workers)."""
        child, self.child = self.child, None
        if child is None:
            return
        if child.poll() is None:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        child.wait()
        for stream in (child.stdin, child.stdout):
            try:
                stream.close()
            except OSError:
                pass


def tune(tune_plan: TunePlan, work_dir: Path, *, tuner: Tuner | None = None, progress=None, notify=None,
         inform=None, deadline: float | None = None) -> TuneOutcome:
    """Tune the planned tasks into work_dir in a tuner process (`tuner`'s, kept for the
    next call, else one of its own). `notify(text)` hears of failed trials as they
    happen, `inform(text)` of the tasks tuned and each batch's best. Before `deadline`
    (time.monotonic()) the tuner stops before a batch that would not end in time, and at
    it is stopped if it has not; Ctrl-C stops it at once. The records of every batch measured
    before either stay."""
    own = tuner is None
    tuner = tuner or Tuner()
    work_dir.mkdir(parents=True, exist_ok=True)
    records = work_dir / RECORDS
    for name in (RECORDS, WORKLOADS):
        cut_partial_line(work_dir / name)
    before = _lines(records)  # a work folder may hold earlier tunes' records
    job = _job(tune_plan, work_dir, deadline)
    run = _TunerRun(tuner, tune_plan, job["batch"], _FailureWatch(work_dir / "logs", notify), inform)
    if tune_plan.rpc:
        from hotdb.capture.tune.runner import DEVICE_LOG, DeviceWatch

        run.devices = DeviceWatch(tune_plan.rpc, tune_plan.devices, work_dir / DEVICE_LOG, notify)
    try:
        tuner.send(job, work_dir / "tune.log")
        run.follow(deadline, lambda: progress and progress(
            "trials", max(0, min(_lines(records) - before - run.warm_records, tune_plan.trials)), tune_plan.trials))
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        if own or not run.ended or run.cause:
            tuner.close()
        run.failures.close()
        for name in (RECORDS, WORKLOADS):  # a line the kill cut short is no record
            cut_partial_line(work_dir / name)
    trials, valid = _count(records, before + run.warm_records)  # the seeded records come first
    if progress:
        progress("trials", trials, max(trials, tune_plan.trials))
    finished = not (run.interrupted or run.killed_at_deadline or run.cause)
    return TuneOutcome(finished, trials, valid, run.failures.failures, run.failures.first,
                       deadline_reached=run.killed_at_deadline or run.stopped == "deadline",
                       stopped=run.stopped, cause=run.cause, warm_records=run.warm_records,
                       longest_batch_s=run.longest_batch_s, batches_s=run.batches_s,
                       devices=run.devices.close() if run.devices else None, seconds=run.seconds,
                       batches=run.batches, stale=run.stale, batch=run.batch)


def _job(tune_plan: TunePlan, work_dir: Path, deadline: float | None) -> dict:
    """What the tuner process is told (capture/tune/process.py reads it)."""
    n = len(tune_plan.task_names)
    untuned = tune_plan.untuned_us or [0.0] * n
    before = tune_plan.batches_before or [0] * n
    stale = tune_plan.stale_before or [0] * n
    return {"model": tune_plan.model, "target": tune_plan.target, "work_dir": str(work_dir.resolve()),
            "tasks": [{"name": name, "share_pct": share, "untuned_us": us, "batches": b, "stale": k}
                      for name, share, us, b, k in zip(tune_plan.task_names, tune_plan.shares_pct, untuned, before, stale)],
            "trials": tune_plan.trials, "per_task_max": tune_plan.per_task_max,
            "batch": trials_per_round(tune_plan.trials, n, tune_plan.per_task_max, tune_plan.batch_max),
            "build_timeout_s": tune_plan.build_timeout_s, "run_timeout_s": tune_plan.run_timeout_s,
            "seconds": None if deadline is None else max(0.0, deadline - DEADLINE_GRACE_S - time.monotonic()),
            "warm": tune_plan.warm, "cost_model": tune_plan.cost_model, "rpc": tune_plan.rpc,
            "devices": tune_plan.devices, "cc": tune_plan.cc}


# seconds the tuner may take to start (import TVM, load and fuse the model, extract its
# tasks, generate design spaces) before the first batch: ResNet-50 took ~60 s here idle
START_S = 600.0
WORKER_START_S = 120.0  # a builder worker's import of TVM's intrinsics: 8-25 s here idle
# the tuner's own deadline comes this much before the kill: a batch just measured is
# written, the tuner ends and saves its cost model
DEADLINE_GRACE_S = 2.0


class _TunerRun:
    """One job of the tuner process followed: its events said, its stall or death named."""

    def __init__(self, tuner: Tuner, tune_plan: TunePlan, batch: int, failures: "_FailureWatch", inform):
        self.tuner, self.plan, self.failures, self.inform = tuner, tune_plan, failures, inform
        self.untuned = dict(zip(tune_plan.task_names, tune_plan.untuned_us or []))
        self.batch, self.batch_limit_s = batch, self._limit_s(batch)
        self.interrupted = self.killed_at_deadline = self.ended = False
        self.stopped = self.cause = None
        self.warm_records = 0
        self.longest_batch_s = None
        self.batches_s = 0.0
        self.started = False
        self.devices = None  # over RPC: capture/tune/runner.py's DeviceWatch
        self.seconds: dict = {}
        self.batches: dict[str, int] = {}
        self.stale: dict[str, int] = {}

    def _limit_s(self, batch: int) -> float:
        """The longest a batch of `batch` trials may take (HOTDB_TUNE_STALL, else from the trial limits)."""
        # a batch builds on BUILD_WORKERS workers and runs one trial at a time, each within its
        # limits; a builder worker replaced (after a timeout, a death) first imports TVM's
        # intrinsics, outside the build's limit (capture/tune/builder.py); over RPC a trial
        # may first wait for a free device of its key
        wait_s = self.plan.rpc["wait_s"] if self.plan.rpc else 0.0
        return limits.tune_stall_s() or (
            -(-batch // BUILD_WORKERS) * self.plan.build_timeout_s + batch * (self.plan.run_timeout_s + wait_s)
            + WORKER_START_S + 60.0)

    def follow(self, deadline: float | None, tick) -> None:
        """Until the job ends (its end or error event), the tuner dies, or it is to be
        stopped: the deadline passed, or no event came for longer than a batch may take."""
        child = self.tuner.child
        selector = selectors.DefaultSelector()
        selector.register(child.stdout, selectors.EVENT_READ)
        last = time.monotonic()
        while not self.ended:
            if selector.select(timeout=1.0):
                chunk = child.stdout.read()
                if not chunk:
                    child.wait()
                    self.cause = self.cause or _death(child.returncode)
                    return
                self.tuner.buffer += chunk
                *lines, self.tuner.buffer = self.tuner.buffer.split(b"\n")
                for line in lines:
                    if line.strip():
                        self._event(json.loads(line))
                        last = time.monotonic()
            self.failures.poll()
            if self.devices is not None:
                self.cause = self.cause or self.devices.poll()
                if self.cause:
                    return
            tick()
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                self.killed_at_deadline = True
                return
            limit = self.batch_limit_s if self.started else max(START_S, self.batch_limit_s)
            if now - last > limit:
                self.cause = (f"no batch came back in {limit:.0f} s, which the trial limits allow "
                              f"(build {self.plan.build_timeout_s:g} s, run {self.plan.run_timeout_s:g} s a trial); "
                              "MetaSchedule's builder or runner is stuck, so the tuner was stopped "
                              "(HOTDB_TUNE_STALL sets the limit)")
                return

    def _event(self, event: dict) -> None:
        kind = event.get("event")
        if kind == "start":
            self.started = True
            if event.get("batch"):  # the tuner's, which a ranking cost model makes larger (process.py: _batch)
                self.batch = int(event["batch"])
                self.batch_limit_s = self._limit_s(self.batch)
            self.warm_records = sum(t["warm_records"] for t in event["tasks"])
            self._say_start(event)
        elif kind == "joined":
            self.batches[event["name"]] = event["batches"]
            self.stale[event["name"]] = event["stale"]
            if event.get("batch_s") is not None:
                self.longest_batch_s = max(self.longest_batch_s or 0.0, event["batch_s"])
                self.batches_s += event["batch_s"]
            self._say_joined(event)
        elif kind == "sibling":
            self.batches_s += event.get("seconds") or 0.0  # measured as a batch is: trial_s counts them
            self._say_sibling(event)
        elif kind == "worker_died" and self.failures.notify:
            self.failures.notify(f"a MetaSchedule worker process died ({_worker_death(event.get('returncode'))}); "
                                 "its trial fails, and MetaSchedule starts a new one")
        elif kind == "end":
            self.stopped, self.ended = event.get("stopped"), True
            self.seconds = event.get("seconds") or {}
        elif kind == "error":
            self.cause = event.get("message") or "the tuner failed without a message (its log says more)"
            self.ended = True

    def _say_start(self, event: dict) -> None:
        if not self.inform:
            return
        shares = dict(zip(self.plan.task_names, self.plan.shares_pct))
        self.inform(f"tuning {counted(len(event['tasks']), 'task')}, {counted(self.plan.trials, 'trial')}: " + ", ".join(
            f"{t['name']} ({shares.get(t['name'], 0):.1f} %)" for t in event["tasks"]))
        warm = [t for t in event["tasks"] if t["warm_records"]]
        if warm:
            self.inform(f"warm start: {sum(t['warm_records'] for t in warm)} records of other tunes for "
                        f"{len(warm)} of the tasks; cost model {event['cost_model']}")
        else:
            self.inform(f"no records of other tunes for these tasks; cost model {event['cost_model']}")
        if self.plan.rpc:
            devices = self.plan.devices
            self.inform(f"measuring on {counted(len(devices), 'device')} of key "
                        f"{self.plan.rpc['key']} at the RPC tracker {self.plan.rpc['tracker']}, in parallel: "
                        + ", ".join(devices))

    def _say_sibling(self, event: dict) -> None:
        if not self.inform:
            return
        got = f"{_ms(event['us'])} a call" if event.get("us") is not None else "the trial failed"
        if not event.get("relative"):
            self.inform(f"sibling trial  {event['name']}: the best schedule of {event['sibling']}, which has the same "
                        f"main block ({_ms(event['sibling_us'])} a call there): {got}")
            return
        here = f"{event['own_gflops']:.1f} here" if event.get("own_gflops") else "none here yet"
        if event.get("us") is not None and event.get("flop"):
            got += f" ({event['flop'] / event['us'] / 1e3:.1f} GFLOP/s)"
        self.inform(f"relative trial  {event['name']}: the best schedule of {event['sibling']}, the same blocks on "
                    f"other shapes ({event['sibling_gflops']:.1f} GFLOP/s there, {here}), its tiles fitted: {got}")

    def _say_joined(self, event: dict) -> None:
        if not self.inform:
            return
        best = event.get("best_us")
        untuned = self.untuned.get(event["name"])
        now = (f"{_ms(best)} a call: the task now {_ms(event['current_us'])} a run, from {_ms(untuned)}"
               if best is not None and untuned else "no trial measured yet")
        took = f" ({event['batch_s']:.0f} s)" if event.get("batch_s") is not None else ""
        self.inform(f"{event['total_trials']}/{self.plan.trials} trials  {event['name']}: "
                    f"{event['valid']} of {event['trials']} measured, best {now}{took}")

def _ms(us: float | None) -> str:
    return "-" if us is None else f"{us / 1000:,.3f} ms" if us < 1e5 else f"{us / 1000:,.1f} ms"


def _worker_death(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"killed by {_signal_name(-returncode)}"
    return "its pipe closed" if returncode is None else f"exit code {returncode}"


def _signal_name(number: int) -> str:
    return signal.Signals(number).name if number in signal.valid_signals() else str(number)


def _death(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        name = _signal_name(-returncode)
        return f"the tuner process was killed by {name}{' (out of memory?)' if name == 'SIGKILL' else ''}"
    return f"the tuner process ended with exit code {returncode} before it said why"


def cut_partial_line(path: Path) -> None:
    """Cut a last line left unfinished (a tuner killed while it wrote): JSONDatabase would
    refuse the whole file."""
    if not path.is_file():
        return
    with path.open("r+b") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(max(0, size - 1))
        if f.read(1) == b"\n":
            return
        keep = 0
        for position in range(size - 1, -1, -1):  # files are small: a few MB at most
            f.seek(position)
            if f.read(1) == b"\n":
                keep = position + 1
                break
        f.truncate(keep)


def _lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as f:
        return sum(1 for line in f if line.strip())


def _count(records: Path, skip: int) -> tuple[int, int]:
    """(records after the first `skip`, of which valid)."""
    if not records.exists():
        return 0, 0
    trials = valid = 0
    with records.open("r", encoding="utf-8") as f:
        for line in [line for line in f if line.strip()][skip:]:
            trials += 1
            try:
                run_secs = json.loads(line)[1][1]
            except (ValueError, IndexError, TypeError):
                continue
            if run_secs and all(float(t) < FAILED_RUN_SECS for t in run_secs):
                valid += 1
    return trials, valid

def applier(work_dir: Path, target, untuned: dict[str, tuple[str, float]] | None = None):
    """A function applying work_dir's database to a fused module, so that it applies.
    `untuned` gives a task's function name its workload's structural hash and the time a
    call its kernel took before tuning: a function whose best record is slower (a default
    schedule can beat a few trials: dlight's did on CUDA) keeps its untuned form. After a
    call, `apply.applied` names the functions a record was applied to (a task whose trials
    all failed has none), `apply.slower` those left untuned for being slower."""
    import tvm
    from tvm import relax
    from tvm.s_tir import meta_schedule as ms

    def apply(fused):
        database = ms.database.JSONDatabase(work_dir=str(work_dir))
        with target, database, tvm.transform.PassContext(opt_level=3):
            applied = relax.transform.MetaScheduleApplyDatabase()(fused)
        best, before = best_by_hash(work_dir), {gv.name_hint: f for gv, f in fused.functions.items()}
        apply.slower = []
        for gv, func in list(applied.functions.items()):
            shash, limit_us = (untuned or {}).get(gv.name_hint, (None, None))
            if limit_us and _scheduled(func) and gv.name_hint in before and best.get(shash, 0) * 1e6 > limit_us:
                applied[gv] = before[gv.name_hint]
                apply.slower.append(gv.name_hint)
        apply.applied = sorted(gv.name_hint for gv, func in applied.functions.items() if _scheduled(func))
        return applied

    apply.applied, apply.slower = [], []
    return apply


def _scheduled(func) -> bool:
    return func.attrs is not None and any(bool(func.attrs[key]) for key in func.attrs.keys()
                                          if str(key).endswith("is_scheduled"))


def best_by_hash(work_dir: Path) -> dict[str, float]:
    """The best valid record of each workload of a JSON database, in seconds a call
    (the mean of its run_secs), keyed by the workload's structural hash."""
    index, best = {}, {}
    workloads, records = Path(work_dir) / WORKLOADS, Path(work_dir) / RECORDS
    if not (workloads.is_file() and records.is_file()):
        return best
    for i, line in enumerate(workloads.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            index[i] = json.loads(line)[0]
    for line in records.read_text(encoding="utf-8").splitlines():
        try:
            i, (_, secs, *_) = json.loads(line)
        except ValueError:
            continue  # a blank line, or one being written
        if secs and all(float(t) < FAILED_RUN_SECS for t in secs) and i in index:
            mean = sum(float(t) for t in secs) / len(secs)
            best[index[i]] = min(best.get(index[i], mean), mean)
    return best


