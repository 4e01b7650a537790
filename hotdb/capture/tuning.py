"""MetaSchedule, as hotdb's tune drives it (hotdb/ops/tune.py says what is tuned and why).

MetaSchedule tunes the selected tasks only, its gradient task scheduler weighted by each
task's measured share of runtime (not by static call counts), within one trial budget;
the JSON database stays in the work folder. The database is applied to the fused module
with MetaScheduleApplyDatabase inside the target and database context: re-running the
pipeline on a fused module would silently apply nothing.
"""

from __future__ import annotations

import _thread
import contextlib
import json
import logging
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from hotdb.errors import UsageError
from hotdb.ingest.ms_database import FAILED_RUN_SECS


@dataclass
class TunePlan:
    task_names: list[str]
    shares_pct: list[float]
    trials: int
    per_task_max: int
    build_timeout_s: float = 120.0  # hotdb/ops/tune.py says why
    run_timeout_s: float = 60.0
    # MetaSchedule writes a batch's records only once it joins the batch's task again (or
    # ends), so a tune cut at a deadline loses what it had not joined: with a deadline,
    # batches of at most 4 (an MLP batch of 8 took over 30 s to build on 2 cores here)
    batch_max: int = 64


def trials_per_round(trials: int, tasks: int, per_task_max: int, batch_max: int = 64) -> int:
    """MetaSchedule's scheduler starts with one round on every task: keep that round within
    the budget, so that the weights, not the warm-up, decide where the trials go."""
    return max(2, min(batch_max, per_task_max, trials // (2 * tasks)))


@dataclass
class TuneOutcome:
    """What a tune did, counted from its own records (not from MetaSchedule's summary)."""

    finished: bool  # False when interrupted (Ctrl-C, or the deadline)
    trials: int  # records this tune wrote
    valid: int  # of which measured a time (MetaSchedule marks a failed trial with 1e10 s)
    failures: dict[str, int]  # first line of each failure message -> trials that failed so
    first_failure: str | None  # the first failure message, whole
    deadline_reached: bool = False  # the interruption was the deadline's, not the user's


_TRIAL_ERROR = re.compile(r"\[Task #\d+: (?P<task>[^\]]+)\] Trial #(?P<trial>\d+): Error in (?P<stage>building|running):")
_LOG_LINE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \[")


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
        message = "\n".join(body).strip() or "(no message)"
        kind = f"error in {match['stage']}: {body[0].strip() if body else '(no message)'}"
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


def tune(loaded, target, tune_plan: TunePlan, work_dir: Path, progress=None, notify=None,
         deadline: float | None = None) -> TuneOutcome:
    """Tune the planned tasks of `loaded` into work_dir. `notify(text)` hears of failed
    trials as they happen. At `deadline` (time.monotonic()) the tune is interrupted as
    Ctrl-C would: the records written so far stay."""
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.profile import fuse

    work_dir.mkdir(parents=True, exist_ok=True)
    fused = fuse(loaded.mod, target)
    extracted = {t.task_name: t for t in ms.relax_integration.extract_tasks(fused, target)}
    missing = [n for n in tune_plan.task_names if n not in extracted]
    if missing:
        raise UsageError(f"tasks {', '.join(missing)} are not in the model as compiled now: "
                         "the model or TVM changed since the baseline run; profile it again")
    tasks = [extracted[n] for n in tune_plan.task_names]
    # MetaSchedule configures its logger anew for each tune, listing the handlers it has by
    # name; a second tune in one process (the API, tests) would meet the first's, closed
    ms_logger = logging.getLogger("tvm.s_tir.meta_schedule")
    for handler in list(ms_logger.handlers):
        ms_logger.removeHandler(handler)
        handler.close()
    log = open(work_dir / "tune.log", "a", encoding="utf-8")
    with contextlib.redirect_stdout(log):  # MetaSchedule logs every round to stdout: keep it in the work folder
        contexts, _ = ms.relax_integration.extracted_tasks_to_tune_contexts(tasks, str(work_dir), num_threads="physical")
    records = work_dir / "database_tuning_record.json"
    before = _lines(records)  # a work folder may hold earlier tunes' records
    failures = _FailureWatch(work_dir / "logs", notify)
    done = threading.Event()

    reached = threading.Event()

    def watch() -> None:  # MetaSchedule has no progress callback: count its records, read its logs
        while not done.wait(1.0):
            if deadline is not None and time.monotonic() >= deadline and not reached.is_set():
                reached.set()
                _thread.interrupt_main()  # MetaSchedule stops as at Ctrl-C, between trials
            if progress:
                progress("trials", min(_lines(records) - before, tune_plan.trials), tune_plan.trials)
            failures.poll()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with contextlib.redirect_stdout(log):
            ms.tune_tasks(tasks=contexts, task_weights=tune_plan.shares_pct, work_dir=str(work_dir),
                          max_trials_global=tune_plan.trials, max_trials_per_task=tune_plan.per_task_max,
                          num_trials_per_iter=trials_per_round(tune_plan.trials, len(tasks), tune_plan.per_task_max,
                                                               tune_plan.batch_max),
                          builder=ms.builder.LocalBuilder(max_workers=2, timeout_sec=tune_plan.build_timeout_s),
                          runner=ms.runner.LocalRunner(timeout_sec=tune_plan.run_timeout_s),
                          cost_model="xgb")
        finished = True
    except (KeyboardInterrupt, RuntimeError) as exc:
        # an interrupt that lands while MetaSchedule waits on its builder comes back
        # through TVM's FFI as a bare RuntimeError
        if isinstance(exc, RuntimeError) and not (reached.is_set() or _from_interrupt(exc)):
            raise
        finished = False
    finally:
        done.set()
        watcher.join()
        _release_log(log)
        failures.close()
    trials, valid = _count(records, before)
    if progress:
        progress("trials", trials, max(trials, tune_plan.trials))
    return TuneOutcome(finished, trials, valid, failures.failures, failures.first, deadline_reached=reached.is_set())


def _from_interrupt(exc: BaseException) -> bool:
    seen = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


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


def _release_log(log) -> None:
    """MetaSchedule's stream handlers were bound to our log file: point them at stderr,
    warnings only, before the file closes."""
    for logger in [logging.getLogger()] + [logging.getLogger(n) for n in list(logging.root.manager.loggerDict)]:
        for handler in getattr(logger, "handlers", []):
            if isinstance(handler, logging.StreamHandler) and handler.stream is log:
                handler.setStream(sys.stderr)
                handler.setLevel(logging.WARNING)
    log.close()


def applier(work_dir: Path, target):
    """A function applying work_dir's database to a fused module, so that it applies.
    After a call, `apply.applied` names the functions a record was applied to: the
    kernels that are tuned in the new build (a task whose trials all failed has none)."""
    import tvm
    from tvm import relax
    from tvm.s_tir import meta_schedule as ms

    def apply(fused):
        database = ms.database.JSONDatabase(work_dir=str(work_dir))
        with target, database, tvm.transform.PassContext(opt_level=3):
            applied = relax.transform.MetaScheduleApplyDatabase()(fused)
        apply.applied = sorted(
            gv.name_hint for gv, func in applied.functions.items()
            if func.attrs is not None and any(bool(func.attrs[key]) for key in func.attrs.keys()
                                              if str(key).endswith("is_scheduled")))
        return applied

    apply.applied = []
    return apply
