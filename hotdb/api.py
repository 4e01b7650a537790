"""The Python API: what the CLI does, for a notebook or a script. Each method is one use
case of hotdb/ops/; it returns data (a Result: columns, rows, facts), never text.

    from hotdb import Hotdb
    db = Hotdb("hotdb.duckdb")                 # or Hotdb(lake="lake/"), Hotdb(lake="s3://bucket/lake")
    db.ingest(["vgg16.debug_table.txt", "vgg16.relay.txt", "vgg16.kernels.txt"], model="vgg16")
    result = db.top(by="task", coverage=90)
    result.records()                           # list of dicts, JSON columns decoded

Each method imports its use case when called: a command imports only what it runs
(`hotdb top` no capture, tune or ingest code; bench/cli_start.py).
"""

from __future__ import annotations

from pathlib import Path

from hotdb.result import Result
from hotdb.store.database import Database


class Hotdb:
    """hotdb over one DuckDB file (`db`, default ./hotdb.duckdb or $HOTDB_DB), or over a
    lake of Delta tables (`lake`; `as_of` a version or time of it, to read): every method
    works the same on both."""

    def __init__(self, db: str | Path | None = None, *, lake: str | Path | None = None, as_of: str | None = None):
        self.database = Database(db, lake=lake, as_of=as_of)

    # -- writing ----------------------------------------------------------------------------
    def ingest(self, paths: list[str | Path], *, model: str | None = None, run: str | list[str] | None = None,
               input_format: str | None = None, tags: dict[str, str] | None = None, strict: bool = False):
        """Store profiles, IR and tasks of one build of `model`, atomically (hotdb/ops/ingest.py);
        a pasted text's artifact that cannot be read is skipped with a warning, unless `strict`."""
        from hotdb.ops import ingest

        return ingest.ingest(self.database, paths, model=model, run=run, input_format=input_format, tags=tags,
                             strict=strict)

    def profile(self, model: str, *, target: str | None = None, repeat: int = 5, warmup: int = 1,
                name: str | None = None, run: str | None = None, tags: dict[str, str] | None = None,
                entry: str | None = None, progress=None, replicates: int = 1, rpc: str | None = None,
                key: str | None = None, rpc_timeout_s: float | None = None, cc: str | None = None):
        """Capture a live profile with apache-tvm and store it as a run, or as a group of
        `replicates` runs; with `rpc` (a tracker's HOST:PORT) and `key`, on a device the
        tracker lends, cross-compiled with `cc` where needed (hotdb/ops/capture.py)."""
        from hotdb.ops import capture

        return capture.profile(self.database, model, target=target, repeat=repeat, warmup=warmup, name=name, run=run,
                               tags=tags, entry=entry, progress=progress, replicates=replicates, rpc=rpc, key=key,
                               rpc_timeout_s=rpc_timeout_s, cc=cc)

    def tune(self, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
             work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3,
             build_timeout_s: float | None = None, run_timeout_s: float | None = None, share_of: str = "tunable",
             budget_s: float | None = None, min_gain_pct: float | None = None, max_rounds: int | None = None,
             progress=None, notify=None, inform=None, rpc: str | None = None, key: str | None = None,
             rpc_timeout_s: float | None = None, cc: str | None = None) -> Result:
        """Tune the hotspot tasks with MetaSchedule in rounds that re-profile, within a trial
        and wall-clock budget; compare; TuneFailed when no trial measured a time. With `rpc`
        and `key`, candidates and re-profiles are measured on the tracker's devices of the
        key, in parallel (hotdb/ops/tune.py)."""
        from hotdb.ops import tune

        return tune.tune(self.database, model, coverage=coverage, trials=trials, per_task_max=per_task_max,
                         work_dir=work_dir, target=target, repeat=repeat, build_timeout_s=build_timeout_s,
                         run_timeout_s=run_timeout_s, share_of=share_of, budget_s=budget_s, min_gain_pct=min_gain_pct,
                         max_rounds=max_rounds, progress=progress, notify=notify, inform=inform, rpc=rpc, key=key,
                         rpc_timeout_s=rpc_timeout_s, cc=cc)

    # -- reading ----------------------------------------------------------------------------
    def top(self, *, by: str = "task", coverage: float | None = None, run: str | None = None, model: str | None = None,
            all_models: bool = False, weights: dict[str, float] | None = None, share_of: str = "tunable",
            projected: bool = False, totals: bool = True, device: str | None = None) -> Result:
        """Tasks (nodes, op families) ranked by time; with `coverage`, the fewest that reach it;
        `weights` (with `all_models`) scale each model's times, each a number above 0. The run's
        totals (matched and tunable shares) are among the facts unless `totals` is False, which
        spares their query; `device` (with `all_models`) keeps the runs measured on it
        (hotdb/ops/rank.py)."""
        from hotdb.ops import rank

        return rank.top(self.database, by=by, coverage=coverage, run=run, model=model, all_models=all_models,
                        weights=weights, share_of=share_of, projected=projected, totals=totals, device=device)

    def export(self, *, to: str, coverage: float | None = 90.0, run: str | None = None, model: str | None = None,
               log: str | Path | None = None, all_models: bool = False, weights: dict[str, float] | None = None,
               share_of: str = "tunable", into: str | Path | None = None, force: bool = False):
        """The tasks a coverage cut selects, in a tuner's own format; `into` a folder whose
        MetaSchedule database the export merges with, unless `force` (hotdb/ops/export.py)."""
        from hotdb.ops import export

        return export.export(self.database, to=to, coverage=coverage, run=run, model=model, log=log,
                             all_models=all_models, weights=weights, share_of=share_of, into=into, force=force)

    def compare(self, run_a: str | None = None, run_b: str | None = None, *, by: str = "task", threshold: float = 0.0,
                model: str | None = None, fail_above_pct: float | None = None,
                allow_different_builds: bool = False, all_items: bool = False) -> Result:
        """Two runs per task (kernel, op) with a significance test; items no side timed (VM
        builtins) only with `all_items`. With `fail_above_pct`, a
        regression gate: raises errors.Regressions when a significant regression exceeds it
        (the 95 % interval above), errors.DifferentBuilds when the runs are of different IR or
        target and not `allow_different_builds`; both carry the comparison (hotdb/ops/compare.py)."""
        from hotdb.ops import compare

        return compare.compare(self.database, run_a, run_b, by=by, threshold=threshold, model=model,
                               fail_above_pct=fail_above_pct, allow_different_builds=allow_different_builds,
                               all_items=all_items)

    def history(self, *, model: str | None = None, task: str | None = None, workload: str | None = None,
                device: str | None = None) -> Result:
        """One task's or workload's time across runs, on one device where `device` names
        one (hotdb/ops/compare.py)."""
        from hotdb.ops import compare

        return compare.history(self.database, model=model, task=task, workload=workload, device=device)

    def matches(self, *, run: str | None = None, model: str | None = None) -> Result:
        """Every node of a run: its task or candidates, the rule, how sure (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.matches(self.database, run=run, model=model)

    def tasks(self, *, model: str | None = None) -> Result:
        """Tuning tasks with their workload, weight and best record (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.tasks(self.database, model=model)

    def runs(self, *, device: str | None = None) -> Result:
        """Runs with their time and matched share, on one device where `device` names one
        (a tracker key, or 'local': hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.runs(self.database, device=device)

    def models(self) -> Result:
        """Models with their runs, sources and tasks (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.models(self.database)

    def latest_run(self, model: str | None = None) -> str:
        """The label of the latest run (of `model`) (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.latest_run(self.database, model)

    def upgrade(self) -> tuple[int, int]:
        """Bring an older database to this hotdb: migrations, views, matches (store/database.py);
        (schema version before, after)."""
        return self.database.upgrade()

    def sql(self, query: str, *, timeout_s: float | None = None, memory_limit: int | str | None = None) -> Result:
        """Any SQL over the tables and views, read-only, within `timeout_s` (default
        HOTDB_SQL_TIMEOUT) and DuckDB's `memory_limit`, bytes or a size such as "2GB"
        (default HOTDB_MEMORY_LIMIT) (hotdb/ops/sql.py)."""
        from hotdb.ops import sql

        return sql.sql(self.database, query, timeout_s=timeout_s, memory_limit=memory_limit)

    def sql_batches(self, query: str, *, timeout_s: float | None = None, memory_limit: int | str | None = None):
        """As `sql`, streamed: a context giving (columns, an iterator of lists of rows), the
        rows fetched as they are read (the process holds a batch, whatever the result's size)."""
        from hotdb.ops import sql

        return sql.sql_batches(self.database, query, timeout_s=timeout_s, memory_limit=memory_limit)

    @staticmethod
    def formats() -> Result:
        """The formats hotdb reads, in detection order (hotdb/ingest/)."""
        from hotdb.ops import runs

        return runs.formats()

    @staticmethod
    def zoo() -> Result:
        """The built-in models `profile` takes by name (hotdb/capture/zoo.py)."""
        from hotdb.ops import runs

        return runs.zoo()

    @staticmethod
    def devices(tracker: str) -> Result:
        """The devices an RPC tracker (HOST:PORT) holds, a row per key: total, free,
        pending, servers (hotdb/ops/capture.py). Reads no database."""
        from hotdb.ops import capture

        return capture.devices(tracker)

    # -- lakes ------------------------------------------------------------------------------
    def lake_import(self, lake: str | Path) -> dict:
        """Copy this database file into a lake (hotdb/ops/lake.py)."""
        from hotdb.ops import lake as lakes

        return lakes.lake_import(self.database, lake)

    def lake_compact(self, lake: str | Path) -> dict:
        """Merge a lake's small files, drop what never landed, vacuum (hotdb/ops/lake.py)."""
        from hotdb.ops import lake as lakes

        return lakes.lake_compact(self.database, lake)

    def lake_export_parquet(self, lake: str | Path, folder: str | Path) -> dict:
        """A lake's committed rows as plain Parquet, a folder per table (hotdb/ops/lake.py)."""
        from hotdb.ops import lake as lakes

        return lakes.lake_export_parquet(self.database, lake, Path(folder))

    def lake_convert(self, lake: str | Path) -> dict:
        """Rewrite a lake of the folder layout of hotdb 0.2 as Delta tables (hotdb/ops/lake.py)."""
        from hotdb.ops import lake as lakes

        return lakes.lake_convert(self.database, lake)


def task_scheduler(exported: dict | str | Path, tasks: list, *, max_trials_global: int,
                   max_trials_per_task: int | None = None):
    """hotdb's task scheduler, for your own `ms.tune_tasks(..., task_scheduler=...)`: the
    task whose next batch is expected to save the most microseconds a run goes next (the
    hottest first), and each batch is joined as soon as it is measured, as `hotdb tune`
    does (docs/tuning.md). `exported`: the `tasks.json` of `hotdb export --to metaschedule`
    (or its path); `tasks`: the extracted tasks (or tune contexts) you give tune_tasks, in
    that order. A task the export does not hold is tuned last (its time is not known)."""
    import json

    from hotdb.capture.tune.scheduler import Policy, TaskState, scheduler

    if not isinstance(exported, dict):
        exported = json.loads(Path(exported).read_text())
    known = {t["task_name"]: t for t in exported.get("tasks", [])}
    states = []
    for task in tasks:
        name = str(getattr(task, "task_name", task))
        row = known.get(name, {})
        states.append(TaskState(name, float(row.get("time_us") or 0.0), int(row.get("calls") or 1)))
    policy = Policy(states, per_task_max=max_trials_per_task or max_trials_global, budget=max_trials_global)
    return scheduler(policy)


def kept_builder(target, *, timeout_s: float = 120.0, workers: int = 2):
    """hotdb's MetaSchedule builder, for your own `ms.tune_tasks(..., builder=...)`: its
    worker processes live as long as it does, so each imports TVM's tensor intrinsics once
    (LocalBuilder's fresh workers import them every batch: ~23 s each on 2 cores, past its
    30 s build limit on a busy machine), and for a CPU target without the GPUs' ones. Each
    build may take `timeout_s` (docs/tuning.md)."""
    import tvm

    from hotdb.capture.tune.builder import kept_builder as _kept

    return _kept(workers, timeout_s, tvm.target.Target(target).kind.name)


def tune_options(exported: dict | str | Path, tasks: list, *, trials: int, target, timeout_s: float = 120.0,
                 run_timeout_s: float = 60.0) -> dict:
    """What `hotdb tune` gives MetaSchedule, for your own `ms.tune_tasks(..., **options)`:
    hotdb's task scheduler (task_scheduler), its kept builder (kept_builder), a runner
    with room for a busy machine, and batches of a few trials a task, so that the
    scheduler can move to the next task once the hottest is fast (docs/tuning.md)."""
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.tune.driver import trials_per_round

    return {"task_scheduler": task_scheduler(exported, tasks, max_trials_global=trials),
            "builder": kept_builder(target, timeout_s=timeout_s),
            "runner": ms.runner.LocalRunner(timeout_sec=run_timeout_s),
            "num_trials_per_iter": trials_per_round(trials, max(1, len(tasks)), trials)}

