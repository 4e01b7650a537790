"""What each command's output says in words: its title, the columns a terminal shows, the
notes under it. The use cases (hotdb/ops/) return facts; this module words them, and
render.py draws them. JSON and CSV output carry every column and no words.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from hotdb.errors import DifferentBuilds, QueryLimit, TuneFailed
from hotdb.result import Result
from hotdb.wording import busy_capture, counted


def plain(text: str) -> str:
    """Text as text, on one line: control characters (escape sequences, carriage returns,
    newlines) shown as \\xNN, line separators and the marks that reorder text (U+2028,
    U+202E...) as \\uNNNN, never acted on by a terminal or a page. A name is data: it
    cannot split a table's row or an error, or turn what follows it around."""
    return text.translate(_CONTROLS)


def markdown(text: str) -> str:
    """Text as Markdown text (GitHub's, with its math and HTML): every character that
    could start markup escaped, and underscores where they could start emphasis."""
    text = _MARKDOWN.sub(r"\\\g<0>", plain(text))
    return _EMPHASIS.sub(r"\\_", text)


_MARKDOWN = re.compile(r"[\\`*\[\]<>|$~#!&]")
_EMPHASIS = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0a, 0x20), *range(0x7f, 0xa0))} | {
    c: f"\\u{c:04x}" for c in (0x061c, 0x200e, 0x200f, 0x2028, 0x2029, *range(0x202a, 0x202f), *range(0x2066, 0x206a))}


def figure(column: str, value: float) -> str:
    """A number as every output shows it, by what its column holds: p-values to three
    significant digits, ratios to three decimals, shares to one, times to 0.1 us."""
    if column == "p_value":
        return f"{value:.3g}"
    if column in ("ratio", "speedup") or column.startswith(("ratio_", "speedup_")):
        return f"{value:.3f}"
    if column == "confidence":
        return f"{value:.2f}"
    if column.endswith("_pct"):
        return f"{value:.1f}"
    return f"{value:,.1f}"


@dataclass
class View:
    title: str
    columns: list[str] | None = None  # shown in a terminal table (all when None)
    notes: list[str] = field(default_factory=list)
    keep: list[str] | None = None  # never dropped to fit a width (the first two columns when None)


TOP_COLUMNS = {
    "task": ["rank", "task_name", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "methods", "confidence",
             "workload_tasks"],
    "node": ["rank", "node", "kernel_family", "time_us", "share_pct", "cumulative_pct", "samples", "min_us", "median_us",
             "max_us", "stddev_us", "task_name", "method", "confidence"],
    "op": None,
}
# what `top` answers, shown at any width: which task, what it computes, how much it holds
TOP_KEEP = ["rank", "task_name", "node", "workload", "share_pct", "cumulative_pct"]
PROJECTED_COLUMNS = ["rank", "task_name", "workload", "time_us", "projected_time_us", "tuned", "reused", "share_pct",
                     "cumulative_pct"]
ALL_MODELS_COLUMNS = ["rank", "task_name", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "models"]
MATCHES_COLUMNS = ["node_index", "node", "time_us", "task_name", "method", "confidence", "candidates", "reason"]
TASKS_COLUMNS = ["model", "tuner", "task_name", "target", "workload", "weight", "formats", "records", "best_cost_us"]
COMPARE_COLUMNS = ["item", "verdict", "ratio", "ratio_low", "ratio_high", "noise_pct", "task_name", "time_a_us",
                   "time_b_us", "runs_a", "runs_b", "samples_a", "samples_b", "p_value", "reason"]
TUNE_COLUMNS = ["item", "verdict", "speedup", "speedup_low", "speedup_high", "tuned", "before_us", "after_us", "noise_from",
                "reason"]
HISTORY_COLUMNS = ["run", "model", "created_at", "task_name", "time_us", "calls", "share_pct", "tvm_version", "tags"]
_KINDS = {"task": ("task", "tasks"), "node": ("node", "nodes"), "op": ("op family", "op families")}


def top(result: Result) -> View:
    f = result.facts
    coverage = f"coverage {f['coverage']:g} %" if f.get("coverage") is not None else None
    if f.get("all_models"):
        title = "all models: top by task" + (f", {coverage}" if coverage else "")
        notes = [f"{counted(len(result.rows), 'task')} cover {f['reached_pct']:.1f} % of the models' weighted time"] if result.rows else []
        return View(title, ALL_MODELS_COLUMNS, notes, keep=TOP_KEEP)
    title = f"run {f['run']}: top by {f['by']}" + (", projected" if f.get("projected") else "") + \
        (f", {coverage}" if coverage else "")
    notes = []
    one, kind = _KINDS[f["by"]]
    if result.rows and f.get("reached_pct") is not None:
        reached, total = f["reached_pct"], f["total_time_us"]
        if f.get("projected"):
            of = "of the tunable kernel time as projected"
        elif f.get("share_of") == "tunable":
            of = (f"of the tunable kernel time ({f['tunable_time_us'] or 0:,.1f} us, "
                  f"{f.get('tunable_pct') or 0:.1f} % of the run's {total:,.1f} us)")
        else:
            of = f"of the run's {total:,.1f} us"
        line = f"{counted(len(result.rows), one, kind)} {'covers' if len(result.rows) == 1 else 'cover'} {reached:.1f} % {of}"
        if f.get("coverage") is not None and reached < f["coverage"]:
            line += f": {f['coverage']:g} % cannot be reached by {kind} alone"
        notes.append(line)
    if f["by"] == "task":
        notes.append(f"apart from it: runtime overhead {f.get('overhead_pct') or 0:.1f} %, "
                     f"untunable kernels {f.get('untunable_pct') or 0:.1f} % of the run")
    if f.get("quiet") is False:
        notes.append(busy_capture(f"run {f['run']}", f["others_cpu_pct"], f["load_slowdown"]))
    notes.append(f"time matched to a workload {f.get('matched_pct') or 0:.1f} % (to a task {f.get('with_task_pct') or 0:.1f} %), "
                 f"ambiguous {f.get('ambiguous_pct') or 0:.1f} %, tunable but unmatched {f.get('unmatched_tunable_pct') or 0:.1f} %, "
                 f"not tunable {f.get('not_tunable_pct') or 0:.1f} %")
    if not result.rows and f["by"] == "task" and f.get("has_tasks"):
        notes.append(f"no task of model {f['model']} matched a kernel of this run: hotdb matches says why for each "
                     "kernel; hotdb top --by op ranks the kernel families")
    notes.extend(missing_artifacts(f))
    columns = PROJECTED_COLUMNS if f.get("projected") else TOP_COLUMNS[f["by"]]
    if f.get("projected"):
        tuned = sum(1 for t in result.column("tuned") if t)
        reused = sum(1 for t, r in zip(result.column("tuned"), result.column("reused")) if t and r)
        notes.insert(0, f"{counted(tuned, 'task')} shown {'has' if tuned == 1 else 'have'} a tuning record that makes "
                     f"{'it' if tuned == 1 else 'them'} faster"
                     + (f" ({reused} of them another model's, of the same workload and target, which a tune reuses)"
                        if reused else "") + "; times as projected")
    if f["by"] == "node" and not any(result.column("samples")):  # a profile of one measurement per node
        columns = [c for c in columns if c not in _SAMPLE_COLUMNS]
    return View(title, columns, notes, keep=[c for c in TOP_KEEP if c in (columns or TOP_KEEP)])


def runs(result: Result) -> View:
    busy = [(r["run"], r["others_cpu_pct"]) for r in result.records() if r.get("busy")]
    notes = ["busy: captured while other processes shared the CPUs, its times measure the machine too: "
             + ", ".join(f"{run} ({pct:.0f} %)" for run, pct in busy)] if busy else []
    return View("runs", notes=notes)


def missing_artifacts(f: dict) -> list[str]:
    """What a ranking lacks and which artifact would add it, with how to print that artifact."""
    notes = []
    if f.get("asked_by") == "task" and f["by"] == "op":
        notes.append(f"model {f['model']} has no tuning tasks stored, so its kernel families are ranked instead")
    if not f.get("has_tasks"):
        notes.append("to rank tasks, ingest the model's tasks into the same model (--model): MetaSchedule: "
                     "print each task_name of ms.relax_integration.extract_tasks(mod, target), or the summary "
                     "table a tune prints; AutoTVM: print(task) for each of autotvm.task.extract_from_program(...); "
                     "auto_scheduler: the tuning log or its 'Cannot find tuned schedules' lines; or capture the model "
                     "live with hotdb profile")
    if not f.get("has_ir"):
        notes.append("to give every kernel its workload (weights, strides, padding), ingest the model's IR: "
                     "print(mod['main']) for Relay, mod.show() or print(mod.script()) for Relax")
    return notes


_SAMPLE_COLUMNS = ("samples", "min_us", "median_us", "max_us", "stddev_us")


def matches(result: Result) -> View:
    return View(f"run {result.facts['run']}: node matches", MATCHES_COLUMNS)


def tasks(result: Result) -> View:
    model = result.facts.get("model")
    return View("tasks" + (f" of {model}" if model else ""), TASKS_COLUMNS)


# what a comparison answers, shown at any width: the item, the verdict, its interval and why
COMPARE_KEEP = ["item", "verdict", "ratio", "ratio_low", "ratio_high", "speedup", "speedup_low", "speedup_high", "reason"]


def compare(result: Result) -> View:
    f = result.facts
    counts = ", ".join(f"{n} {verdict}" for verdict, n in sorted(f.get("verdicts", {}).items()))
    notes = [counts, *compare_legend(result)]
    if f.get("unmeasured"):
        notes.append(f"{counted(f['unmeasured'], 'item')} no side timed (VM builtins) left out: --all-items shows them")
    return View(f"{f['run_a']} -> {f['run_b']}, by {f['by']}", COMPARE_COLUMNS, notes, keep=COMPARE_KEEP)


def compare_legend(result: Result) -> list[str]:
    """What a comparison's verdicts rest on, said once under its table."""
    f = result.facts
    sources = {r["noise_from"] for r in result.records()}
    notes = [f"ratio = b/a of geometric means; ratio_low..ratio_high: its 95 % interval; {f.get('runs_a', 1)} "
             f"run(s) a side against {f.get('runs_b', 1)}"]
    if "runs" in sources:
        notes.append("noise_from runs: the spread between runs of the same build (replicates and history, "
                     "view item_noise), t test, p adjusted across items (Benjamini-Hochberg); within noise: "
                     "no change beyond ±noise_pct % could be told")
    if "samples" in sources:
        notes.append("noise_from samples: one capture a side and no other run of its build: only changes beyond "
                     "the noise assumed between captures are told (capture with --replicates 3 to judge smaller ones)")
    if "none" in sources:
        notes.append("can't tell: see reason; a derived item (runtime overhead) or a printed time has 0 samples")
    if f.get("busy_runs"):
        notes.append("captured beside busy processes, left out of their side where it has a quiet run; a side with "
                     "none is judged with its interval widened by the most the load can slow a kernel, 1 / (1 - the "
                     "others' share of the CPUs): " + ", ".join(f"{r['label']} ({r['others_cpu_pct']:.0f} % of the CPUs)"
                                                               for r in f["busy_runs"]))
    return notes


def different_builds(facts: dict) -> str | None:
    """The warning a comparison of two different builds carries, or None."""
    what = []
    if facts.get("same_ir") is False:
        what.append("different IR")
    if facts.get("same_target") is False:
        what.append(f"different targets ({facts.get('target_a')} vs {facts.get('target_b')})")
    if facts.get("same_device") is False:
        what.append(f"different devices ({facts.get('device_a')} vs {facts.get('device_b')})")
    if not what:
        return None
    return (f"{facts['run_a']} and {facts['run_b']} are runs of {' and '.join(what)}: "
            "a change may be the model's, the target's or the device's, not the code's")


def compare_warnings(facts: dict) -> list[str]:
    """The warnings a comparison carries (before its table)."""
    return [warning for warning in [different_builds(facts)] if warning]


def history(result: Result) -> View:
    on = f" on {result.facts['device']}" if result.facts.get("device") else ""
    return View(f"history of {result.facts['item']}{on}", HISTORY_COLUMNS)


def devices(result: Result) -> View:
    notes = [] if result.rows else ["no device is registered (python -m tvm.exec.rpc_server --tracker HOST:PORT --key KEY)"]
    return View(f"devices of the RPC tracker at {result.facts['tracker']}", None, notes, keep=["key", "total", "free"])


def tune(result: Result) -> View:
    f = result.facts
    notes = [f"database: {f['work_dir']}", f"run {f['tuned']} (baseline {f['baseline']})"]
    failed = f["trials"] - f["valid_trials"]
    if failed:
        kinds = "; ".join(f"{n} x {kind}" for kind, n in f["failures"].items())
        notes.append(f"{failed} of {f['trials']} trials failed" + (f": {kinds}" if kinds else ""))
    slower = f.get("slower") or []
    if slower:
        notes.append(f"{len(slower)} selected tasks' best records were slower than their untuned kernels, so the "
                     f"build keeps those: {', '.join(slower)} (more trials may find faster ones)")
    devices = f.get("devices")
    if devices:
        servers = sorted(set(devices["measured"]) | set(devices["failed"]) | set(devices["lost"]))
        notes.append(f"measured on {len(devices['measured'])} devices of key {devices['key']} at {devices['tracker']}: "
                     + ", ".join(f"{s} ({devices['measured'].get(s, 0)} trials"
                                 + (f", {devices['failed'][s]} failed" if devices["failed"].get(s) else "")
                                 + (", lost mid-tune" if s in devices["lost"] else "") + ")" for s in servers))
    if f["applied"] + len(slower) < f["tasks"]:
        notes.append(f"{f['tasks'] - f['applied'] - len(slower)} selected tasks got no valid schedule and run as before")
    for r in f.get("rounds", []):
        e2e = f", end to end {r['end_to_end_us'] / 1000:,.2f} ms" if r.get("end_to_end_us") else ""
        notes.append(f"round {r['round']} ({r['seconds']:,.0f} s): {len(r['tasks'])} tasks, "
                     f"{r['valid_trials']} of {r['trials']} trials measured{e2e}, run {r['run']}")
    if f.get("stopped") == "deadline" and f.get("budget_left_s") is not None:
        notes.append(f"stopped for the --budget of {f['budget_s']:,.0f} s after {f['seconds']:,.0f} s: "
                     f"{f['budget_left_s']:,.0f} s were left, less than the next round's least "
                     f"{f['next_round_s']:,.0f} s (a batch of trials and the re-profile); the records tuned were applied")
    elif f.get("stopped") == "deadline" and f.get("budget_s"):
        notes.append(f"stopped at the --budget of {f['budget_s']:,.0f} s ({f['seconds']:,.0f} s in all): the batch "
                     "in flight was lost, the records tuned before it were applied")
    elif f.get("stopped"):
        notes.append(f"stopped: {f['stopped']}" + (" (the records tuned so far were applied)"
                                                   if f["stopped"] in ("interrupted", "deadline") else ""))
    return View(f"{f['baseline']} -> {f['tuned']}: {f['applied']} of {f['tasks']} tasks tuned, "
                f"{f['valid_trials']} of {f['trials']} trials measured in {len(f.get('rounds', [])) or 1} rounds",
                TUNE_COLUMNS, notes, keep=COMPARE_KEEP)


# the option that sets each of a tune's (a query's) limits, for errors that name one
TUNE_LIMIT_OPTIONS = {"build_timeout_s": "--build-timeout", "run_timeout_s": "--run-timeout"}
SQL_LIMIT_OPTIONS = {"timeout_s": "--timeout SECONDS", "memory_limit": "--memory-limit SIZE"}


def error(exc: Exception) -> str:
    """An error as the command line says it: the API's words, and the option that would
    change the outcome where one would (the API names no option)."""
    if isinstance(exc, DifferentBuilds):
        return ("--fail-on-regression compares builds of the same IR, target and device; "
                "give --allow-different-builds to judge these anyway")
    if isinstance(exc, TuneFailed) and exc.limit in TUNE_LIMIT_OPTIONS:
        return f"{exc} Raise it with {TUNE_LIMIT_OPTIONS[exc.limit]} SECONDS."
    if isinstance(exc, QueryLimit) and exc.limit in SQL_LIMIT_OPTIONS:
        return f"{exc}; {SQL_LIMIT_OPTIONS[exc.limit]} raises it for one query"
    return str(exc)


def lake_imported(counts: dict, lake: str) -> str:
    skipped = ""
    if counts["skipped"]:
        skipped = (f" ({counted(counts['skipped'], 'ingest')} skipped: the lake holds "
                   f"{'its' if counts['skipped'] == 1 else 'their'} files")
        if counts.get("labels_held"):
            skipped += f", or a run of the model under the same label: {', '.join(counts['labels_held'])}"
        skipped += ")"
    return f"imported {counted(counts['models'], 'model')}, {counted(counts['runs'], 'run')} into {lake}{skipped}"


def lake_compacted(counts: dict, lake: str) -> str:
    if counts.get("busy"):
        return f"another compaction of {lake} is running ({counts['busy']}): left the lake to it"
    return (f"compacted {counts['tables']} tables of {lake}: {counts['files_removed']} files merged or removed, "
            f"rows of {counts['orphan_commits']} unfinished commits deleted")


def export_notes(facts: dict) -> list[str]:
    where = f"run {facts['run']}" if facts.get("run") else "all models"
    of = "of the tunable kernel time" if facts.get("share_of", "tunable") == "tunable" else "of the run's time"
    notes = [f"{where}: {facts['workloads']} workloads cover {facts['covered_pct']:.1f} % {of}, "
             f"{counted(facts['tasks'], 'task')} selected"]
    if facts["untuned"]:
        untuned = facts["untuned"]
        named = ", ".join(f"{name} x{untuned.count(name)}" if untuned.count(name) > 1 else name
                          for name in dict.fromkeys(untuned))
        notes.append(f"{len(untuned)} of the {facts['tasks']} selected tasks {'has' if len(untuned) == 1 else 'have'} "
                     f"no tuning record: {named}")
    if facts["taskless"]:
        notes.append(f"{len(facts['taskless'])} selected workloads have no task of the model: {'; '.join(facts['taskless'])}")
    if facts.get("records_written") is not None:
        notes.append(f"{facts['records_written']} tuning records written")
    merged = facts.get("merged")
    if merged:
        notes.append(f"merged into the MetaSchedule database in {merged['folder']}: its {merged['kept_records']} records "
                     f"and {merged['kept_workloads']} workloads kept as they were, {merged['added_records']} records and "
                     f"{merged['added_workloads']} workloads added (--force replaces it instead)")
    if facts.get("replaced"):
        notes.append(f"--force: the MetaSchedule database in {facts['replaced']} was replaced by the export's")
    if facts.get("database") is not None:
        notes.append(f"-o DIR writes DIR/tasks.json and the selected tasks' {facts['database']['records']} stored records "
                     f"({facts['database']['workloads']} workloads) as a MetaSchedule JSON database: "
                     "JSONDatabase(work_dir=DIR); docs/tuning.md shows both in use")
    return notes


def titled(title: str):
    """The view of a result that has no words of its own (runs, models, sql, ...)."""
    return lambda result: View(title)


models = titled("models")
def sql(result) -> View:
    more = result.facts.get("more_rows", 0)
    notes = [f"{more:,} more rows not shown: -f csv, jsonl or json write every row"] if more else []
    return View("sql", notes=notes)


formats = titled("formats, in detection order")
zoo = titled("built-in models")


def environment_error(exc: Exception) -> str | None:
    """One line for what the machine, not hotdb, refused: a file or folder that cannot be
    written or read (missing, a directory, read-only, a full disk), a database file that
    DuckDB cannot read (damaged, truncated). None for anything else: a bug keeps its
    traceback."""
    if isinstance(exc, OSError) and not any(kind.__name__ == "DeltaError" for kind in type(exc).__mro__):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    duck = type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb")
    if duck and (type(exc).__name__ in ("IOException", "SerializationException", "InternalException", "FatalException")
                 or first.startswith("Corrupt database file")):
        return f"the database could not be read or written: {first}"
    if (duck and "parquet" in first.lower()) or type(exc).__module__ == "pyarrow.lib":
        return f"a file of the lake could not be read (damaged or truncated): {first}"
    if any(kind.__name__ == "DeltaError" for kind in type(exc).__mro__):  # deltalake's, whatever module it names
        from hotdb.store.delta import said

        return f"the lake could not be read or written: {said(exc)}"
    if type(exc).__name__ == "OutOfMemoryException" and type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb"):
        limit = (os.environ.get("HOTDB_MEMORY_LIMIT") or "").strip()
        return (f"DuckDB ran out of memory under HOTDB_MEMORY_LIMIT={limit or '384MiB (the default)'}: "
                "raise it (e.g. HOTDB_MEMORY_LIMIT=2GB), or read less at once")
    return None
