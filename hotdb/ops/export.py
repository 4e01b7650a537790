"""Export the tasks a coverage cut selects, in each tuner's own format.

The selection is SQL (queries/commands/export_selection.sql for one run,
export_selection_all_models.sql for the latest run of every model); this module only
writes it out. Tuning-log exports copy the selected tasks' record lines unchanged, so
that `autotvm.apply_history_best` and `auto_scheduler.ApplyHistoryBest` read them.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from hotdb import choices
from hotdb.errors import UsageError
from hotdb.ops.common import check_choice, check_coverage, check_share_of, check_weights, fleet_params, resolve_run
from hotdb.store.connection import Store
from hotdb.store.database import Database, query, value
from hotdb.wording import article

MS_TRIALS_PER_ITER = 64  # tune_tasks' default num_trials_per_iter
_TUNER = {"autotvm-log": "autotvm", "autotvm-tasks": "autotvm", "ansor-log": "auto_scheduler",
          "tvmc-tasks": None, "metaschedule": "meta_schedule"}


@dataclass
class Export:
    text: str
    selected: list[dict]  #: rows of the selection (one per task, or per task-less workload)
    facts: dict = field(default_factory=dict)
    #: a folder's files (name -> text) where the format is one: metaschedule's tasks.json and
    #: JSON database; written instead of `text` when the export goes to a path
    files: dict[str, str] = field(default_factory=dict)


def export(database: Database, *, to: str, coverage: float | None = 90.0, run: str | None = None,
           model: str | None = None, log: str | Path | None = None, all_models: bool = False,
           weights: dict[str, float] | None = None, share_of: str = "tunable", into: str | Path | None = None,
           force: bool = False) -> Export:
    """The tasks a coverage cut selects, rendered for a tuner; shares of the run's tunable
    kernel time, or with `share_of="run"` of its whole time. `into`: the folder a
    metaschedule export will be written to; a MetaSchedule database already there is
    merged with the export's records (theirs kept as they are, ours appended), unless
    `force` (then replaced)."""
    check_choice(to, choices.EXPORT_TO, f"the export format is one of {', '.join(choices.EXPORT_TO)}")
    check_coverage(coverage)
    check_share_of(share_of)
    check_weights(weights)
    with database.reader() as store:
        if all_models:
            if run or model:
                raise UsageError("an export over all models takes no run or model")
            label = None
            result = query(store, "export_selection_all_models", fleet_params(weights, coverage))
            selection = _rows(result)
            model_ids = sorted({m for row in selection for m in row.pop("model_ids") or []})
        else:
            run_id, label = resolve_run(store, run, model)
            selection = _rows(query(store, "export_selection",
                                    {"run_id": run_id, "coverage_pct": coverage, "basis": share_of}))
            model_ids = [value(store, "model_of_run", {"run_id": run_id})]
        tuner = _TUNER.get(to)
        lines = order = None
        if tuner in ("autotvm", "auto_scheduler") and to.endswith("-log"):
            if log is not None:
                lines = filter_log(Path(log), selection, tuner)
            else:
                keys = [f"{r['task_name']} {r['task_args']}" for r in selection if r["tuner"] == tuner]
                lines = query(store, "export_records", {"model_ids": model_ids, "tuner": tuner, "tasks": keys}).column("raw_line")
        database = names = None
        if to == "metaschedule":
            database = _ms_database(store, model_ids, selection)
            names = query(store, "ms_task_names", {"model_ids": model_ids}).column("task_name")
        if to == "tvmc-tasks":
            if len(model_ids) != 1:
                raise UsageError("tvmc numbers the tasks of one model; export tvmc task numbers per model")
            order = _listing_order(store, model_ids[0], selection)
    empty = _nothing_to_export(to, selection, lines)
    if empty:
        raise UsageError(f"nothing to export as {to}: {empty}")
    text = render(to, selection, lines, order, names)
    facts = {"run": label, "workloads": len({r["workload"] for r in selection}),
             "covered_pct": sum(r["share_pct"] for r in selection if r["share_pct"] is not None),
             "share_of": share_of,
             "tasks": sum(1 for r in selection if r["task_name"]),
             "untuned": [r["task_name"] for r in selection if r["task_name"] and not r["records"]],
             "taskless": [r["workload"] for r in selection if r["task_name"] is None],
             "records_written": len(lines) if lines is not None else None}
    files = {}
    if database is not None:
        facts["database"] = {"workloads": database[0].count("\n"), "records": database[1].count("\n")}
        if into is not None and not force:
            database, facts["merged"] = merge_ms_database(Path(into), *database)
        elif into is not None and (Path(into) / MS_FILES[0]).exists():
            facts["replaced"] = str(into)
        files = {MS_FILES[0]: database[0], MS_FILES[1]: database[1], "tasks.json": text}
    return Export(text, selection, facts, files)


MS_FILES = ("database_workload.json", "database_tuning_record.json")


def merge_ms_database(folder: Path, workloads: str, records: str) -> tuple[tuple[str, str], dict | None]:
    """The export's database merged into the one a folder already holds (a tune's work
    folder, a user's own): their lines kept byte for byte and in order, ours appended; a
    workload they hold (the same structural hash) is theirs, our records renumbered to
    it; a record they hold already is not added again. A folder's `tasks.json` not of an
    earlier export is theirs: refused. None for the counts where the folder held none."""
    tasks = folder / "tasks.json"
    if tasks.is_file() and not _is_our_tasks(tasks):
        raise UsageError(f"{tasks} is not a tasks.json hotdb exported; export into another folder, or --force to replace it")
    paths = [folder / name for name in MS_FILES]
    if not paths[0].is_file():
        return (workloads, records), None
    theirs_w, theirs_r = (_whole_lines(path) for path in paths)
    index = {json.loads(line)[0]: i for i, line in enumerate(theirs_w.splitlines())}
    held = {line.strip() for line in theirs_r.splitlines()}
    ours_w = workloads.splitlines()
    remap, added_w = {}, []
    for i, line in enumerate(ours_w):
        shash = json.loads(line)[0]
        if shash not in index:
            index[shash] = len(index)
            added_w.append(line)
        remap[i] = index[shash]
    added_r = []
    for line in records.splitlines():
        number, tail = line[1:].split(",", 1)
        line = f"[{remap[int(number)]},{tail}"
        if line not in held:
            held.add(line)
            added_r.append(line)
    merged = (theirs_w + "".join(w + "\n" for w in added_w), theirs_r + "".join(r + "\n" for r in added_r))
    return merged, {"folder": str(folder), "kept_records": len(theirs_r.splitlines()), "added_records": len(added_r),
                    "kept_workloads": len(theirs_w.splitlines()), "added_workloads": len(added_w)}


def _whole_lines(path: Path) -> str:
    """A database file's text, ending in a newline, so that lines appended stay lines; a
    last line a killed tune cut short is refused (MetaSchedule would read neither it nor
    the line appended to it)."""
    text = path.read_text() if path.is_file() else ""
    if text and not text.endswith("\n"):
        last = text.rsplit("\n", 1)[-1]
        try:
            json.loads(last)
        except ValueError:
            raise UsageError(f"{path}:{text.count(chr(10)) + 1}: the last line is cut short (a tune stopped while "
                             "writing it); remove it, or export with --force to replace the database") from None
        text += "\n"
    return text


def _is_our_tasks(path: Path) -> bool:
    try:
        return "op_names" in json.loads(path.read_text())
    except (ValueError, TypeError, OSError):
        return False


def _ms_database(store: Store, model_ids: list[int], selection: list[dict]) -> tuple[str, str]:
    """The selected MetaSchedule tasks' stored records as a JSON database's two files
    (database_workload.json, database_tuning_record.json), workloads numbered anew."""
    hashes = sorted({r["structural_hash"] for r in selection if r["tuner"] == "meta_schedule" and r["structural_hash"]})
    rows = query(store, "export_ms_database", {"model_ids": model_ids, "hashes": hashes}).rows
    index: dict[str, int] = {}
    workloads, records = [], []
    for shash, workload_line, record_tail in rows:
        if shash not in index:
            index[shash] = len(workloads)
            workloads.append(workload_line)
        records.append(f"[{index[shash]},{record_tail}")
    return "".join(w + "\n" for w in workloads), "".join(r + "\n" for r in records)


def _nothing_to_export(to: str, selection: list[dict], lines: list[str] | None) -> str | None:
    """Why a format would receive nothing from this selection (a file the tuner reads as
    "no tasks" is a failure, not a success), or None."""
    tuner = _TUNER.get(to)
    tasks = [r for r in selection if r["task_name"] is not None]
    if not tasks:
        return "the selection holds no task (ingest the model's tasks: a task printout, a tuning log or a capture)"
    if tuner is not None and not any(r["tuner"] == tuner for r in tasks):
        held = ", ".join(sorted({r["tuner"] for r in tasks}))
        return f"the selected tasks are {held} tasks, none is {article(tuner)} task (export --to json lists them)"
    if lines is not None and not lines:
        return (f"none of the selected {tuner} tasks has a tuning record "
                f"(tune them first, or export --to {'autotvm-tasks' if tuner == 'autotvm' else 'json'})")
    return None


def _rows(result) -> list[dict]:
    """Records with task_args as the JSON text the tasks table holds (and the logs hold)."""
    return [dict(zip(result.columns, row)) for row in result.rows]


def _listing_order(store: Store, model_id: int, selection: list[dict]) -> list[int]:
    """tvmc tune --tasks indices: positions in a printed task list (extraction order)."""
    wanted = [(r["task_name"], r["task_args"]) for r in selection if r["tuner"] == "autotvm"]
    listings: dict[int, dict] = {}
    for row in _rows(query(store, "task_listings", {"model_id": model_id})):
        listings.setdefault(row["source_id"], {})[(row["task_name"], row["task_args"])] = row["task_index"]
    for index in listings.values():
        if wanted and all(w in index for w in wanted):
            return sorted(index[w] for w in wanted)
    raise UsageError("tvmc numbers tasks in the order it extracts them, which hotdb knows only from a printed "
                     "task list (Task(...) reprs in extraction order) holding every selected task; this model "
                     "has none. Ingest one, or export the tasks themselves (autotvm-tasks)")


def render(fmt: str, selection: list[dict], record_lines: list[str] | None, listing_order: list[int] | None,
           ms_names: list[str] | None = None) -> str:
    tuner = _TUNER.get(fmt)
    rows = [r for r in selection if r["task_name"] is not None and (tuner is None or r["tuner"] == tuner)]
    if fmt in ("autotvm-log", "ansor-log"):
        return "".join(line + "\n" for line in record_lines or [])
    if fmt == "autotvm-tasks":
        return json.dumps([[r["task_name"], json.loads(r["task_args"])] for r in rows], indent=1) + "\n"
    if fmt == "tvmc-tasks":
        return ",".join(str(i) for i in listing_order) + "\n"
    if fmt == "metaschedule":
        return json.dumps(_ms_tasks(rows, ms_names or []), indent=1) + "\n"
    if fmt == "json":
        return json.dumps([{**r, "task_args": json.loads(r["task_args"]) if r["task_args"] else None}
                           for r in selection], indent=1, default=str) + "\n"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(selection[0]) if selection else ["task_name"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(selection)
    return buffer.getvalue()


def _ms_tasks(rows: list[dict], names: list[str]) -> dict:
    """What MetaSchedule takes: `op_names` (hottest first) for
    relax.transform.MetaScheduleTuneIRMod (and tune_relax), `task_weights` (the measured
    shares) for tune_tasks, the trials below which those weights change nothing, and each
    task (hotdb.task_scheduler reads their times). An
    op name selects every task whose name contains it (relax_integration.tune_relax), so
    the names it would select beyond the selection are listed under `also_selects`."""
    selected = [r["task_name"] for r in rows if not r["task_name"].isdigit()]  # a bare hash names no extracted task
    also = {n: sorted(o for o in names if n in o and o not in selected) for n in selected}
    return {"op_names": selected,  # hottest first, as the selection is ranked
            "task_weights": {r["task_name"]: r["share_pct"] for r in rows if r["task_name"] in selected},
            "also_selects": {n: o for n, o in also.items() if o},
            # MetaSchedule's gradient scheduler first gives each task a batch of num_trials_per_iter
            # trials, in the order it is given the tasks: weights count only beyond that warm-up
            "num_trials_per_iter": MS_TRIALS_PER_ITER,
            "trials_before_weights_count": MS_TRIALS_PER_ITER * len(selected),
            "tasks": [{"task_name": r["task_name"], "structural_hash": r["structural_hash"], "workload": r["workload"],
                       "calls": r["calls"], "share_pct": r["share_pct"], "time_us": r["time_us"]} for r in rows]}


def filter_log(path: Path, selection: list[dict], tuner: str) -> list[str]:
    """Lines of a tuning log (not ingested) that belong to the selected tasks, unchanged."""
    from hotdb.ingest import get
    from hotdb.ingest.source import Source

    source = Source.read(path)
    parsed = get("ansor-log" if tuner == "auto_scheduler" else "autotvm-tasks").parse(source)
    wanted = {(r["task_name"], r["task_args"]) for r in selection if r["tuner"] == tuner}
    return [rec.raw_line for rec in parsed.records
            if (parsed.tasks[rec.task_index].task_name, parsed.tasks[rec.task_index].task_args) in wanted]
