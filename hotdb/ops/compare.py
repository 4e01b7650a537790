"""Runs against runs: two runs per item with a significance test (queries/commands/compare.sql),
and one item's time across runs (history.sql)."""

from __future__ import annotations

from hotdb.errors import UsageError
from hotdb.result import Result
from hotdb.store.database import Database, query

COMPARE_BY = {"task": "workload", "workload": "workload", "node": "kernel", "kernel": "kernel", "op": "op"}


def compare(database: Database, run_a: str | None = None, run_b: str | None = None, *, by: str = "task",
            threshold: float = 0.0, model: str | None = None) -> Result:
    """Run A against run B per task/workload (or kernel, or op), with a significance test
    on the repeated samples. Default: the two latest runs of one model (of `model`, else
    of the latest run's model)."""
    from hotdb.ops.runs import resolve_run

    if by not in COMPARE_BY:
        raise UsageError(f"a comparison is by task, workload, node (kernel) or op, not {by!r}")
    with database.reader() as store:
        if run_a is None or run_b is None:
            if model is None:
                latest = query(store, "latest_runs", {"model": None, "limit": 1}).rows
                if not latest:
                    raise UsageError("the database has no runs yet")
                model = latest[0][2]
            labels = query(store, "latest_runs", {"model": model, "limit": 2}).column("label")
            if len(labels) < 2:
                raise UsageError(f"model {model!r} has fewer than two runs to compare; name two runs")
            run_b, run_a = (run_b or labels[0]), (run_a or labels[1])
        a, label_a = resolve_run(store, run_a)
        b, label_b = resolve_run(store, run_b)
        from hotdb.stats import register

        register(store.con)
        result = query(store, "compare", {"a": a, "b": b, "by": COMPARE_BY[by], "threshold_pct": threshold},
                       run_a=label_a, run_b=label_b, by=by)
        result.facts.update(query(store, "run_pair", {"a": a, "b": b}).records()[0])
    verdicts: dict[str, int] = {}
    for verdict in result.column("verdict"):
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    result.facts["verdicts"] = verdicts
    return result


def history(database: Database, *, model: str | None = None, task: str | None = None,
            workload: str | None = None) -> Result:
    """One task's (or workload's) time across runs, with run metadata."""
    if task is None and workload is None:
        raise UsageError("name the item: a task name or a workload key")
    with database.reader() as store:
        result = query(store, "history", {"model": model, "task": task, "workload": workload},
                       item=task or workload)
    if not result.rows:
        raise UsageError(f"no run has {'task ' + task if task else 'workload ' + workload}")
    return result
