"""The Python API: one facade that the CLI mirrors and a notebook uses the same way.

    db = Hotdb("hotdb.duckdb")
    db.ingest(["vgg16.table.txt", "vgg16.relay.txt", "vgg16.tasks.txt"], model="vgg16")
    result = db.top(by="task", coverage=90)
    result.records()   # list of dicts, JSON columns decoded
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from hotdb.errors import CaptureError, HotdbError, ParseError, UsageError
from hotdb.store.connection import Store

if TYPE_CHECKING:  # the ingest side is imported where it is used: `top` and friends start faster
    from hotdb.store.loader import LoadResult

TOP_BY = ("task", "node", "op")
_TABLE_COLUMNS = {
    "top_task": ["rank", "task_name", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "methods", "confidence"],
    "top_node": ["rank", "node", "kernel_family", "time_us", "share_pct", "cumulative_pct", "task_name", "method", "confidence"],
    "matches": ["node_index", "node", "time_us", "task_name", "method", "confidence", "candidates", "reason"],
    "tasks": ["model", "tuner", "task_name", "target", "workload", "weight", "formats", "records", "best_cost_us"],
    "compare": ["item", "task_name", "time_a_us", "time_b_us", "ratio", "samples_a", "samples_b", "p_value", "verdict"],
    "history": ["run", "model", "created_at", "task_name", "time_us", "calls", "share_pct", "tvm_version", "tags"],
    "top_all_models": ["rank", "task_name", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "models"],
}
# Columns that hold JSON text and are decoded in records() (and so in --format json).
_JSON_COLUMNS = frozenset({"task_args"})


@dataclass
class Result:
    """A query result: what the CLI renders as a table, JSON or CSV."""

    title: str
    columns: list[str]
    rows: list[tuple]
    notes: list[str] = field(default_factory=list)
    #: the columns a terminal table shows (all when None); JSON and CSV always get all
    table_columns: list[str] | None = None

    def records(self) -> list[dict]:
        out = []
        for row in self.rows:
            record = dict(zip(self.columns, row))
            for column in _JSON_COLUMNS & record.keys():
                if isinstance(record[column], str):
                    record[column] = json.loads(record[column])
            out.append(record)
        return out


class Hotdb:
    """hotdb over one DuckDB file (`db`), or over a lake of Parquet files (`lake`, see
    hotdb/store/lake.py): every method works the same on both."""

    def __init__(self, db: str | Path | None = None, *, lake: str | Path | None = None):
        self.db_path = db
        self.lake = None
        if lake is not None:
            from hotdb.store.lake import Lake

            self.lake = Lake(lake)

    def _store(self, create: bool = False) -> Store:
        """A database to read: the file opened read-only (readers side by side), or the lake's views."""
        if self.lake is not None:
            if create:
                self.lake.root.mkdir(parents=True, exist_ok=True)
            return self.lake.reader()
        return Store(self.db_path, create=create, read_only=not create)

    def _load(self, model: str, items, **options) -> LoadResult:
        """Store one ingest: one transaction in the file, or new files in the lake."""
        if self.lake is not None:
            self.lake.root.mkdir(parents=True, exist_ok=True)
            return self.lake.ingest(model, items, **options)
        from hotdb.store.loader import load

        with Store(self.db_path, create=True) as store:
            return load(store, model, items, **options)

    # -- lakes ----------------------------------------------------------------------------
    def lake_export(self, lake: str | Path) -> dict:
        """Copy this database file into a lake (hotdb/store/lake.py)."""
        from hotdb.store.lake import Lake

        from hotdb.store.connection import default_path

        Path(lake).mkdir(parents=True, exist_ok=True)
        return Lake(lake).export(Path(self.db_path) if self.db_path else default_path())

    def lake_manifests(self, lake: str | Path, prefix: str | None = None) -> dict:
        from hotdb.store.lake import Lake

        if not Path(lake).is_dir():
            raise UsageError(f"no lake at {lake}")
        return Lake(lake).manifests(prefix)

    def lake_compact(self, lake: str | Path) -> dict:
        from hotdb.store.lake import Lake

        if not Path(lake).is_dir():
            raise UsageError(f"no lake at {lake}")
        return Lake(lake).compact()

    # -- writing --------------------------------------------------------------------------
    def ingest(self, paths: list[str | Path], *, model: str | None = None, run: str | list[str] | None = None,
               format: str | None = None, tags: dict[str, str] | None = None) -> LoadResult:
        """Parse every file first (nothing is written if one fails), then store them all
        in one transaction as one build of `model`."""
        from hotdb.ingest import files

        items = [(item.source, item.format, item.parsed) for item in files.read(paths, format)]
        model = model or files.default_model_name(paths)
        return self._load(model, items, run_label=run, tags=tags)

    def profile(self, model: str, *, target: str | None = None, repeat: int = 5, warmup: int = 1,
                name: str | None = None, run: str | None = None, tags: dict[str, str] | None = None,
                entry: str | None = None, progress=None) -> LoadResult:
        """Compile MODEL (zoo name, .onnx file or file.py:function) with apache-tvm, time
        every kernel call, extract its MetaSchedule tasks and store it all as one run."""
        if repeat < 1 or warmup < 0:
            raise UsageError("--repeat must be >= 1 and --warmup >= 0")
        from hotdb.capture.models import load_model
        from hotdb.capture.profile import capture, parse_target
        from hotdb.ingest.base import Source
        from hotdb.ingest.relax import RelaxScript

        loaded = load_model(model, entry)
        target_obj = parse_target(target)
        try:
            result = capture(loaded, target_obj, repeat=repeat, warmup=warmup, progress=progress)
        except HotdbError:
            raise
        except Exception as exc:  # TVM raises its own error types; say where it failed
            raise CaptureError(f"{model}: apache-tvm failed to compile or run it: {type(exc).__name__}: "
                               f"{str(exc).strip().splitlines()[-1] if str(exc).strip() else ''} (--debug shows the traceback)") from exc
        stamp = f"{loaded.source} {datetime.now(timezone.utc).isoformat()} {target_obj}"
        profile_source = Source(Path(f"capture:{loaded.source}"), stamp.encode())
        ir_source = Source(Path(f"capture:{loaded.source}.relax.py"), loaded.script.encode())
        task_source = Source(Path(f"capture:{loaded.source}.tasks"), "\n".join(
            f"{t.task_name} {t.task_args} {t.target}" for t in result.tasks.tasks).encode())
        items = [(profile_source, "live-capture", result.profile),
                 (ir_source, "relax", RelaxScript().parse(ir_source)),
                 (task_source, "meta_schedule", result.tasks)]
        return self._load(name or loaded.name, items, run_label=run, tags=tags,
                          target=result.profile.run.target, run_meta=result.run_meta)

    def tune(self, model: str, *, coverage: float = 90.0, trials: int = 64, per_task_max: int | None = None,
             work_dir: str | Path | None = None, target: str | None = None, repeat: int = 3,
             progress=None) -> Result:
        """Tune only the tasks covering `coverage` % of the model's latest run for `target`
        with MetaSchedule, re-profile with the database applied, and compare (hotdb/tune.py)."""
        from hotdb import tune as tuning
        from hotdb.capture.models import load_model
        from hotdb.capture.profile import capture, parse_target
        from hotdb.ingest.base import Source
        from hotdb.ingest.ms_database import MsDatabase
        from hotdb.ingest.relax import RelaxScript

        loaded = load_model(model)
        target_obj = parse_target(target)
        target_json = json.dumps(dict(target_obj.export()), sort_keys=True, default=str)
        with self._store(create=True) as store:
            # the baseline is untuned: every tune compiles the model afresh with its own database
            rows = store.con.execute("""
                SELECT r.run_id, r.label FROM runs AS r JOIN models AS m USING (model_id)
                WHERE m.name = ? AND r.target = ? AND r.baseline_run_id IS NULL
                ORDER BY r.created_at DESC, r.run_id DESC LIMIT 1""", [loaded.name, target_json]).fetchall()
        if not rows:
            self.profile(model, target=target, repeat=repeat, progress=progress)
            with self._store() as store:
                rows = store.con.execute("""
                    SELECT r.run_id, r.label FROM runs AS r JOIN models AS m USING (model_id)
                    WHERE m.name = ? AND r.baseline_run_id IS NULL ORDER BY r.created_at DESC, r.run_id DESC LIMIT 1""",
                                         [loaded.name]).fetchall()
        baseline_id, baseline_label = rows[0]
        with self._store() as store:
            selection = self._report(store, "selection", "export_selection",
                                     {"run_id": baseline_id, "coverage_pct": coverage}).records()
        tune_plan = tuning.plan(selection, trials, per_task_max)
        work = Path(work_dir or f"hotdb-tune-{loaded.name}")
        finished = tuning.tune(loaded, target_obj, tune_plan, work, progress)
        try:
            result = capture(loaded, target_obj, repeat=repeat, progress=progress, apply=tuning.applier(work, target_obj))
        except HotdbError:
            raise
        except Exception as exc:
            raise CaptureError(f"{model}: re-profiling with the tuned database failed: {type(exc).__name__}: {exc}") from exc
        stamp = f"{loaded.source} tuned {datetime.now(timezone.utc).isoformat()}"
        ir_source = Source(Path(f"capture:{loaded.source}.relax.py"), loaded.script.encode())
        task_source = Source(Path(f"capture:{loaded.source}.tasks"), "\n".join(
            f"{t.task_name} {t.task_args} {t.target}" for t in result.tasks.tasks).encode())
        items = [(Source(Path(f"capture:{loaded.source}"), stamp.encode()), "live-capture", result.profile),
                 (ir_source, "relax", RelaxScript().parse(ir_source)),
                 (task_source, "meta_schedule", result.tasks)]
        if (work / "database_workload.json").exists():
            database = Source.read(work)
            items.append((database, "ms-database", MsDatabase().parse(database)))
        tags = {"tuned_from": baseline_label, "trials": str(tune_plan.trials), "coverage_pct": f"{coverage:g}"}
        if not finished:
            tags["interrupted"] = "true"
        loaded_result = self._load(loaded.name, items, tags=tags, target=result.profile.run.target,
                                   run_meta={**result.run_meta, "baseline_run_id": baseline_id})
        with self._store() as store:
            tuned_id = store.con.execute("SELECT run_id FROM runs WHERE label = ?", [loaded_result.run_label]).fetchall()[0][0]
            compare = self._report(store, f"{baseline_label} -> {loaded_result.run_label}: tuned {len(tune_plan.task_names)} "
                                   f"tasks, {tune_plan.trials} trials", "tune_compare",
                                   {"baseline": baseline_id, "tuned": tuned_id, "tasks": tune_plan.task_names})
        compare.notes = [f"database: {work}", f"run {loaded_result.run_label} (baseline {baseline_label})"] + \
            ([] if finished else ["tuning was interrupted: the records tuned so far were applied"])
        return compare

    # -- reading --------------------------------------------------------------------------
    def _query(self, store: Store, title: str, sql: str, params: dict | None = None) -> Result:
        cursor = store.con.execute(sql, params or {})
        columns = [d[0] for d in cursor.description]
        return Result(title, columns, cursor.fetchall())

    def _report(self, store: Store, title: str, name: str, params: dict | None = None) -> Result:
        result = self._query(store, title, store.report_sql(name), params)
        result.table_columns = _TABLE_COLUMNS.get(name)
        return result

    def resolve_run(self, store: Store, run: str | None = None, model: str | None = None) -> tuple[int, str]:
        if run is not None:
            rows = store.con.execute("SELECT run_id, label FROM runs WHERE label = ?", [run]).fetchall()
            if not rows:
                known = [r[0] for r in store.con.execute("SELECT label FROM runs ORDER BY created_at DESC, run_id DESC LIMIT 5").fetchall()]
                raise UsageError(f"no run labelled {run!r}" + (f"; latest runs: {', '.join(known)}" if known else ""))
            return rows[0]
        if model is not None:
            rows = store.con.execute("""
                SELECT r.run_id, r.label FROM runs AS r JOIN models AS m USING (model_id)
                WHERE m.name = ? ORDER BY r.created_at DESC, r.run_id DESC LIMIT 1""", [model]).fetchall()
            if not rows:
                raise UsageError(f"model {model!r} has no runs")
            return rows[0]
        rows = store.con.execute("SELECT run_id, label FROM runs ORDER BY created_at DESC, run_id DESC LIMIT 1").fetchall()
        if not rows:
            raise UsageError("the database has no runs yet; ingest a profile first")
        return rows[0]

    def top(self, *, by: str = "task", coverage: float | None = None, run: str | None = None,
            model: str | None = None, all_models: bool = False, weights: dict[str, float] | None = None) -> Result:
        """Rows ranked by time with share and cumulative share of the run's total time;
        with `coverage`, the fewest rows whose cumulative share reaches it. With
        `all_models`, tasks over the latest run of every model (times scaled by `weights`),
        a workload shared by models counted once."""
        if all_models:
            if by != "task" or run or model:
                raise UsageError("--all-models ranks tasks over every model's latest run; it takes no --by, --run or --model")
            if coverage is not None and not 0 < coverage <= 100:
                raise UsageError(f"--coverage must be a percentage in (0, 100], not {coverage}")
            with self._store() as store:
                known = {r[0] for r in store.con.execute("SELECT name FROM models").fetchall()}
                unknown = sorted(set(weights or {}) - known)
                if unknown:
                    raise UsageError(f"--weight names unknown models: {', '.join(unknown)}")
                result = self._report(store, "all models: top by task" + (f", coverage {coverage:g} %" if coverage else ""),
                                      "top_all_models", {"weight_models": list((weights or {}).keys()),
                                                        "weight_values": list((weights or {}).values()),
                                                        "coverage_pct": coverage})
                if result.rows:
                    result.notes = [f"{len(result.rows)} tasks cover {result.rows[-1][result.columns.index('cumulative_pct')]:.1f} % "
                                    f"of the models' weighted time"]
                return result
        if by not in TOP_BY:
            raise UsageError(f"--by must be one of {', '.join(TOP_BY)}, not {by!r}")
        if coverage is not None and not 0 < coverage <= 100:
            raise UsageError(f"--coverage must be a percentage in (0, 100], not {coverage}")
        with self._store() as store:
            run_id, label = self.resolve_run(store, run, model)
            title = f"run {label}: top by {by}" + (f", coverage {coverage:g} %" if coverage is not None else "")
            result = self._report(store, title, f"top_{by}", {"run_id": run_id, "coverage_pct": coverage})
            result.notes = self._coverage_notes(store, run_id, by, coverage, result)
            return result

    def _coverage_notes(self, store: Store, run_id: int, by: str, coverage, result: Result) -> list[str]:
        (total, matched, ambiguous, unmatched, not_tunable, with_task), = store.con.execute("""
            SELECT total_time_us, matched_pct, ambiguous_pct, unmatched_tunable_pct, not_tunable_pct, with_task_pct
            FROM run_totals WHERE run_id = ?""", [run_id]).fetchall()
        notes = []
        if result.rows and "cumulative_pct" in result.columns:
            reached = result.rows[-1][result.columns.index("cumulative_pct")] or 0.0
            kind = {"task": "tasks", "node": "nodes", "op": "op families"}[by]
            if coverage is not None and reached < coverage:
                notes.append(f"{len(result.rows)} {kind} cover {reached:.1f} % of {total:,.1f} us: "
                             f"{coverage:g} % cannot be reached by {kind} alone")
            else:
                notes.append(f"{len(result.rows)} {kind} cover {reached:.1f} % of {total:,.1f} us")
        notes.append(f"time matched to a workload {matched or 0:.1f} % (to a task {with_task or 0:.1f} %), "
                     f"ambiguous {ambiguous or 0:.1f} %, tunable but unmatched {unmatched or 0:.1f} %, "
                     f"not tunable {not_tunable or 0:.1f} %")
        return notes

    def export(self, *, to: str, coverage: float | None = 90.0, run: str | None = None, model: str | None = None,
               log: str | Path | None = None, all_models: bool = False):
        """The tasks a coverage cut selects, rendered for a tuner (see hotdb/export.py)."""
        from hotdb import export

        if to not in export.FORMATS:
            raise UsageError(f"--to must be one of {', '.join(export.FORMATS)}, not {to!r}")
        with self._store() as store:
            if all_models:
                if run or model:
                    raise UsageError("--all-models takes no --run or --model")
                label = "all models"
                fleet = self.top(all_models=True, coverage=coverage).records()
                share = {r["workload"]: r for r in fleet}
                tasks, seen = [], set()
                for t in self._report(store, "tasks", "export_tasks_of_workloads", {"workloads": list(share)}).records():
                    key = (t["tuner"], t["task_name"], json.dumps(t["task_args"]))
                    if key not in seen:  # one task shared by several models is one task to tune
                        seen.add(key)
                        tasks.append(t)
                selection = [{"rank": share[t["workload"]]["rank"], **t, "calls": share[t["workload"]]["calls"],
                              "time_us": share[t["workload"]]["time_us"], "share_pct": share[t["workload"]]["share_pct"],
                              "cumulative_pct": share[t["workload"]]["cumulative_pct"]} for t in tasks]
                selection += [{"rank": r["rank"], "tuner": None, "task_name": None, "task_args": None, "workload": w,
                               "share_pct": r["share_pct"], "records": 0} for w, r in share.items()
                              if not any(t["workload"] == w for t in tasks)]
                model_ids = sorted({t["model_id"] for t in tasks})
            else:
                run_id, label = self.resolve_run(store, run, model)
                selection = self._report(store, "selection", "export_selection",
                                         {"run_id": run_id, "coverage_pct": coverage}).records()
                model_ids = [store.con.execute("SELECT model_id FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0]]
            for row in selection:  # args back to the JSON text the ingestors stored (and the logs hold)
                if row["task_args"] is not None and not isinstance(row["task_args"], str):
                    row["task_args"] = store.con.execute(
                        "SELECT task_args FROM tasks WHERE source_id = ? AND task_index = ?",
                        [row["source_id"], row["task_index"]]).fetchall()[0][0]
            tuner = {"autotvm-log": "autotvm", "ansor-log": "auto_scheduler"}.get(to)
            lines, order = None, None
            if tuner and log is not None:
                lines = export.filter_log(Path(log), selection, tuner)
            elif tuner:
                keys = [f"{r['task_name']} {r['task_args']}" for r in selection if r["tuner"] == tuner]
                lines = [row[0] for row in store.con.execute(store.report_sql("export_records"),
                                                             {"model_ids": model_ids, "tuner": tuner, "tasks": keys}).fetchall()]
            if to == "tvmc-tasks":
                if len(model_ids) != 1:
                    raise UsageError("tvmc numbers the tasks of one model; export --to tvmc-tasks per model")
                order = self._listing_order(store, model_ids[0], selection)
            text = export.render(to, selection, lines, order)
        workloads = {r["workload"]: r["share_pct"] for r in selection}
        covered = sum(workloads.values())
        notes = [f"run {label}: {len(workloads)} workloads cover {covered:.1f} %, "
                 f"{sum(1 for r in selection if r['task_name'])} tasks selected"]
        untuned = sorted({r["task_name"] for r in selection if r["task_name"] and not r["records"]})
        if untuned:
            notes.append(f"{len(untuned)} selected tasks have no tuning record: {', '.join(untuned)}")
        taskless = [r["workload"] for r in selection if r["task_name"] is None]
        if taskless:
            notes.append(f"{len(taskless)} selected workloads have no task of the model: {'; '.join(taskless)}")
        if lines is not None:
            notes.append(f"{len(lines)} tuning records written")
        return export.Export(text, selection, covered, notes)

    @staticmethod
    def _listing_order(store: Store, model_id: int, selection: list[dict]) -> list[int]:
        """tvmc tune --tasks indices: positions in a printed task list (extraction order)."""
        listings = store.con.execute("""
            SELECT s.source_id, s.path FROM sources AS s
            WHERE s.model_id = ? AND s.role = 'tasks' AND s.format = 'autotvm-tasks'
              AND NOT EXISTS (SELECT 1 FROM tuning_records AS r WHERE r.source_id = s.source_id)
            ORDER BY s.source_id DESC""", [model_id]).fetchall()
        wanted = [(r["task_name"], r["task_args"]) for r in selection if r["tuner"] == "autotvm"]
        for source_id, _ in listings:
            index = {(n, a): i for n, a, i in store.con.execute(
                "SELECT task_name, task_args, task_index FROM tasks WHERE source_id = ?", [source_id]).fetchall()}
            if wanted and all(w in index for w in wanted):
                return sorted(index[w] for w in wanted)
        raise UsageError("tvmc numbers tasks in the order it extracts them, which hotdb knows only from a printed "
                         "task list (Task(...) reprs in extraction order) holding every selected task; this model "
                         "has none. Ingest one, or export --to autotvm-tasks")

    def compare(self, run_a: str | None = None, run_b: str | None = None, *, by: str = "task",
                threshold: float = 0.0, model: str | None = None) -> Result:
        """Run A against run B per task/workload (or kernel), with a significance test on
        the repeated samples (queries/reports/compare.sql). Default: the two latest runs
        of one model (of `model`, else of the latest run's model)."""
        if by not in ("task", "workload", "node", "kernel", "op"):
            raise UsageError(f"--by must be task, workload, node (kernel) or op, not {by!r}")
        with self._store() as store:
            if run_a is None or run_b is None:
                if model is None:
                    latest = store.con.execute("SELECT m.name FROM runs AS r JOIN models AS m USING (model_id) "
                                               "ORDER BY r.created_at DESC, r.run_id DESC LIMIT 1").fetchall()
                    if not latest:
                        raise UsageError("the database has no runs yet")
                    model = latest[0][0]
                labels = [r[0] for r in store.con.execute(
                    "SELECT r.label FROM runs AS r JOIN models AS m USING (model_id) WHERE m.name = ? "
                    "ORDER BY r.created_at DESC, r.run_id DESC LIMIT 2", [model]).fetchall()]
                if len(labels) < 2:
                    raise UsageError(f"model {model!r} has fewer than two runs to compare; name two runs")
                run_b, run_a = (run_b or labels[0]), (run_a or labels[1])
            a, label_a = self.resolve_run(store, run_a)
            b, label_b = self.resolve_run(store, run_b)
            result = self._report(store, f"{label_a} -> {label_b}, by {by}", "compare",
                                  {"a": a, "b": b, "by": {"node": "kernel", "kernel": "kernel", "op": "op"}.get(by, "workload"),
                                   "threshold_pct": threshold})
        counts = {}
        for record in result.records():
            counts[record["verdict"]] = counts.get(record["verdict"], 0) + 1
        result.notes = [", ".join(f"{n} {v}" for v, n in sorted(counts.items())),
                        "significant: every sample of one run beyond every sample of the other "
                        "(exact two-sided Mann-Whitney p <= 0.05, so at least 4 samples a side)"]
        return result

    def history(self, *, model: str | None = None, task: str | None = None, workload: str | None = None) -> Result:
        """One task's (or workload's) time across runs, with run metadata."""
        if task is None and workload is None:
            raise UsageError("name the item: --task NAME or --workload KEY")
        with self._store() as store:
            result = self._report(store, f"history of {task or workload}", "history",
                                  {"model": model, "task": task, "workload": workload})
        if not result.rows:
            raise UsageError(f"no run has {'task ' + task if task else 'workload ' + workload}")
        return result

    def matches(self, *, run: str | None = None, model: str | None = None) -> Result:
        """Every node of a run with its task or candidates, method and confidence."""
        with self._store() as store:
            run_id, label = self.resolve_run(store, run, model)
            return self._report(store, f"run {label}: node matches", "matches", {"run_id": run_id})

    def tasks(self, *, model: str | None = None) -> Result:
        """Every distinct task of a model and target with its workload and best record."""
        with self._store() as store:
            if model is not None and not store.con.execute("SELECT 1 FROM models WHERE name = ?", [model]).fetchall():
                raise UsageError(f"no model named {model!r}")
            return self._report(store, "tasks" + (f" of {model}" if model else ""), "tasks", {"model": model})

    def runs(self) -> Result:
        with self._store() as store:
            return self._report(store, "runs", "runs")

    def models(self) -> Result:
        with self._store() as store:
            return self._report(store, "models", "models")

    def sql(self, query: str) -> Result:
        """Any SQL over the tables and views."""
        import duckdb

        with self._store() as store:
            try:
                return self._query(store, "sql", query)
            except duckdb.Error as exc:
                raise UsageError(f"SQL error: {exc}") from None
