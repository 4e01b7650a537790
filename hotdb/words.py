"""What each command's output says in words: its title, the columns a terminal shows, the
notes under it. The use cases (hotdb/ops/) return facts; this module words them, and
render.py draws them. JSON and CSV output carry every column and no words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hotdb.result import Result


@dataclass
class View:
    title: str
    columns: list[str] | None = None  # shown in a terminal table (all when None)
    notes: list[str] = field(default_factory=list)


TOP_COLUMNS = {
    "task": ["rank", "task_name", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "methods", "confidence"],
    "node": ["rank", "node", "kernel_family", "time_us", "share_pct", "cumulative_pct", "task_name", "method", "confidence"],
    "op": None,
}
ALL_MODELS_COLUMNS = ["rank", "task_name", "workload", "time_us", "calls", "share_pct", "cumulative_pct", "models"]
MATCHES_COLUMNS = ["node_index", "node", "time_us", "task_name", "method", "confidence", "candidates", "reason"]
TASKS_COLUMNS = ["model", "tuner", "task_name", "target", "workload", "weight", "formats", "records", "best_cost_us"]
COMPARE_COLUMNS = ["item", "task_name", "time_a_us", "time_b_us", "ratio", "samples_a", "samples_b", "p_value", "verdict"]
HISTORY_COLUMNS = ["run", "model", "created_at", "task_name", "time_us", "calls", "share_pct", "tvm_version", "tags"]
_KINDS = {"task": "tasks", "node": "nodes", "op": "op families"}


def top(result: Result) -> View:
    f = result.facts
    coverage = f"coverage {f['coverage']:g} %" if f.get("coverage") is not None else None
    if f.get("all_models"):
        title = "all models: top by task" + (f", {coverage}" if coverage else "")
        notes = [f"{len(result.rows)} tasks cover {f['reached_pct']:.1f} % of the models' weighted time"] if result.rows else []
        return View(title, ALL_MODELS_COLUMNS, notes)
    title = f"run {f['run']}: top by {f['by']}" + (f", {coverage}" if coverage else "")
    notes = []
    kind = _KINDS[f["by"]]
    if result.rows and f.get("reached_pct") is not None:
        reached, total = f["reached_pct"], f["total_time_us"]
        line = f"{len(result.rows)} {kind} cover {reached:.1f} % of {total:,.1f} us"
        if f.get("coverage") is not None and reached < f["coverage"]:
            line += f": {f['coverage']:g} % cannot be reached by {kind} alone"
        notes.append(line)
    notes.append(f"time matched to a workload {f.get('matched_pct') or 0:.1f} % (to a task {f.get('with_task_pct') or 0:.1f} %), "
                 f"ambiguous {f.get('ambiguous_pct') or 0:.1f} %, tunable but unmatched {f.get('unmatched_tunable_pct') or 0:.1f} %, "
                 f"not tunable {f.get('not_tunable_pct') or 0:.1f} %")
    return View(title, TOP_COLUMNS[f["by"]], notes)


def matches(result: Result) -> View:
    return View(f"run {result.facts['run']}: node matches", MATCHES_COLUMNS)


def tasks(result: Result) -> View:
    model = result.facts.get("model")
    return View("tasks" + (f" of {model}" if model else ""), TASKS_COLUMNS)


def compare(result: Result) -> View:
    f = result.facts
    counts = ", ".join(f"{n} {verdict}" for verdict, n in sorted(f.get("verdicts", {}).items()))
    return View(f"{f['run_a']} -> {f['run_b']}, by {f['by']}", COMPARE_COLUMNS,
                [counts, "significant: every sample of one run beyond every sample of the other "
                         "(exact two-sided Mann-Whitney p <= 0.05, so at least 4 samples a side)"])


def history(result: Result) -> View:
    return View(f"history of {result.facts['item']}", HISTORY_COLUMNS)


def tune(result: Result) -> View:
    f = result.facts
    notes = [f"database: {f['work_dir']}", f"run {f['tuned']} (baseline {f['baseline']})"]
    if not f.get("finished", True):
        notes.append("tuning was interrupted: the records tuned so far were applied")
    return View(f"{f['baseline']} -> {f['tuned']}: tuned {f['tasks']} tasks, {f['trials']} trials", None, notes)


def export_notes(facts: dict) -> list[str]:
    where = f"run {facts['run']}" if facts.get("run") else "all models"
    notes = [f"{where}: {facts['workloads']} workloads cover {facts['covered_pct']:.1f} %, {facts['tasks']} tasks selected"]
    if facts["untuned"]:
        notes.append(f"{len(facts['untuned'])} selected tasks have no tuning record: {', '.join(facts['untuned'])}")
    if facts["taskless"]:
        notes.append(f"{len(facts['taskless'])} selected workloads have no task of the model: {'; '.join(facts['taskless'])}")
    if facts.get("records_written") is not None:
        notes.append(f"{facts['records_written']} tuning records written")
    return notes


def plain(title: str):
    """The view of a result that has no words of its own (runs, models, sql, ...)."""
    return lambda result: View(title)


runs = plain("runs")
models = plain("models")
sql = plain("sql")
formats = plain("formats, in detection order")
zoo = plain("built-in models")
