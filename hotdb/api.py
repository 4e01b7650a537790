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
               input_format: str | None = None, tags: dict[str, str] | None = None):
        """Store profiles, IR and tasks of one build of `model`, atomically (hotdb/ops/ingest.py)."""
        from hotdb.ops import ingest

        return ingest.ingest(self.database, paths, model=model, run=run, input_format=input_format, tags=tags)

    def profile(self, model: str, *, target: str | None = None, repeat: int = 5, warmup: int = 1,
                name: str | None = None, run: str | None = None, tags: dict[str, str] | None = None,
                entry: str | None = None, progress=None, replicates: int = 1):
        """Capture a live profile with apache-tvm and store it as a run, or as a group of
        `replicates` runs (hotdb/ops/capture.py)."""
        from hotdb.ops import capture

        return capture.profile(self.database, model, target=target, repeat=repeat, warmup=warmup, name=name, run=run,
                               tags=tags, entry=entry, progress=progress, replicates=replicates)

    def tune(self, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
             work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3,
             build_timeout_s: float | None = None, run_timeout_s: float | None = None, share_of: str = "tunable",
             budget_s: float | None = None, min_gain_pct: float | None = None, max_rounds: int | None = None,
             progress=None, notify=None, inform=None) -> Result:
        """Tune the hotspot tasks with MetaSchedule in rounds that re-profile, within a trial
        and wall-clock budget; compare; TuneFailed when no trial measured a time (hotdb/ops/tune.py)."""
        from hotdb.ops import tune

        return tune.tune(self.database, model, coverage=coverage, trials=trials, per_task_max=per_task_max,
                         work_dir=work_dir, target=target, repeat=repeat, build_timeout_s=build_timeout_s,
                         run_timeout_s=run_timeout_s, share_of=share_of, budget_s=budget_s, min_gain_pct=min_gain_pct,
                         max_rounds=max_rounds, progress=progress, notify=notify, inform=inform)

    # -- reading ----------------------------------------------------------------------------
    def top(self, *, by: str = "task", coverage: float | None = None, run: str | None = None, model: str | None = None,
            all_models: bool = False, weights: dict[str, float] | None = None, share_of: str = "tunable",
            projected: bool = False, totals: bool = True) -> Result:
        """Tasks (nodes, op families) ranked by time; with `coverage`, the fewest that reach it;
        `weights` (with `all_models`) scale each model's times, each a number above 0. The run's
        totals (matched and tunable shares) are among the facts unless `totals` is False, which
        spares their query (hotdb/ops/rank.py)."""
        from hotdb.ops import rank

        return rank.top(self.database, by=by, coverage=coverage, run=run, model=model, all_models=all_models,
                        weights=weights, share_of=share_of, projected=projected, totals=totals)

    def export(self, *, to: str, coverage: float | None = 90.0, run: str | None = None, model: str | None = None,
               log: str | Path | None = None, all_models: bool = False, weights: dict[str, float] | None = None,
               share_of: str = "tunable"):
        """The tasks a coverage cut selects, in a tuner's own format (hotdb/ops/export.py)."""
        from hotdb.ops import export

        return export.export(self.database, to=to, coverage=coverage, run=run, model=model, log=log,
                             all_models=all_models, weights=weights, share_of=share_of)

    def compare(self, run_a: str | None = None, run_b: str | None = None, *, by: str = "task", threshold: float = 0.0,
                model: str | None = None, fail_above_pct: float | None = None,
                allow_different_builds: bool = False) -> Result:
        """Two runs per task (kernel, op) with a significance test. With `fail_above_pct`, a
        regression gate: raises errors.Regressions when a significant regression exceeds it
        (the 95 % interval above), errors.DifferentBuilds when the runs are of different IR or
        target and not `allow_different_builds`; both carry the comparison (hotdb/ops/compare.py)."""
        from hotdb.ops import compare

        return compare.compare(self.database, run_a, run_b, by=by, threshold=threshold, model=model,
                               fail_above_pct=fail_above_pct, allow_different_builds=allow_different_builds)

    def history(self, *, model: str | None = None, task: str | None = None, workload: str | None = None) -> Result:
        """One task's or workload's time across runs (hotdb/ops/compare.py)."""
        from hotdb.ops import compare

        return compare.history(self.database, model=model, task=task, workload=workload)

    def matches(self, *, run: str | None = None, model: str | None = None) -> Result:
        """Every node of a run: its task or candidates, the rule, how sure (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.matches(self.database, run=run, model=model)

    def tasks(self, *, model: str | None = None) -> Result:
        """Tuning tasks with their workload, weight and best record (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.tasks(self.database, model=model)

    def runs(self) -> Result:
        """Runs with their time and matched share (hotdb/ops/runs.py)."""
        from hotdb.ops import runs

        return runs.runs(self.database)

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
