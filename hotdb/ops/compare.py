"""Runs against runs: two runs per item with a significance test (queries/commands/compare.sql),
and one item's time across runs (history.sql); the regression gate that judges a comparison."""

from __future__ import annotations

import math

from hotdb import choices
from hotdb.errors import BadArgument, DifferentBuilds, NothingTested, Regressions, UsageError
from hotdb.ops.common import check_choice, resolve_run
from hotdb.result import Result
from hotdb.store.database import Database, query

_ITEMS = {"task": "workload", "node": "kernel"}  # what compare.sql pairs by for each choice that is another's name
END_TO_END = "(end to end)"  # the row of the whole run, which the gate does not judge


def compare(database: Database, run_a: str | None = None, run_b: str | None = None, *, by: str = "task",
            threshold: float = 0.0, model: str | None = None, fail_above_pct: float | None = None,
            allow_different_builds: bool = False) -> Result:
    """Run A against run B per task/workload (or kernel, or op), with a significance test
    on the repeated samples. Default: the two latest runs of one model (of `model`, else
    of the latest run's model). With `fail_above_pct`, a regression gate (`gate`): raises
    Regressions or DifferentBuilds, which carry the comparison."""
    check_choice(by, choices.COMPARE_BY, "a comparison is by task, workload, node (kernel) or op")
    _check_gate(fail_above_pct)
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
        result = query(store, "compare", {"a": a, "b": b, "by": _ITEMS.get(by, by), "threshold_pct": threshold},
                       run_a=label_a, run_b=label_b, by=by)
        result.facts.update(query(store, "run_pair", {"a": a, "b": b}).records()[0])
    verdicts: dict[str, int] = {}
    for verdict in result.column("verdict"):
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    result.facts["verdicts"] = verdicts
    if fail_above_pct is not None:
        gate(result, fail_above_pct, allow_different_builds=allow_different_builds)
    return result


def _check_gate(fail_above_pct: float | None) -> None:
    if fail_above_pct is not None and (not math.isfinite(fail_above_pct) or fail_above_pct < 0):
        raise BadArgument(f"a regression gate fails above a percentage of 0 or more, not {fail_above_pct}")


def gate(result: Result, fail_above_pct: float, *, allow_different_builds: bool = False) -> None:
    """The regression gate: raises Regressions when a significant regression exceeds
    `fail_above_pct` % with 95 % confidence (the lower end of its ratio's interval lies
    above it), and DifferentBuilds when the runs are of different IR or target (a change
    may be the build's, not the code's) unless `allow_different_builds`."""
    if different_builds(result.facts) and not allow_different_builds:
        raise DifferentBuilds("the regression gate judges runs of the same IR and target; allow different builds "
                              "to judge these anyway", result=result)
    items = [r for r in result.records() if r["item"] != END_TO_END]
    if not any(r["verdict"] in TESTED for r in items):
        raise NothingTested(f"the regression gate tested nothing: none of the {len(items)} items compared has two "
                            "samples or more a side, so no change could be told from noise; capture each run with "
                            "several samples a kernel (hotdb profile --repeat 3, or a debug table with "
                            "Measurements(us))", result=result)
    worst = [r for r in result.records() if r["verdict"] == "regression" and r["item"] != END_TO_END
             and r["ratio_low"] is not None and (r["ratio_low"] - 1) * 100 > fail_above_pct]
    if worst:
        raise Regressions(f"{len(worst)} significant regressions above {fail_above_pct:g} %: "
                          + ", ".join(f"{r['task_name'] or r['item']} x{r['ratio']:.3f} "
                                      f"(95 % interval {r['ratio_low']:.3f}-{r['ratio_high']:.3f})" for r in worst),
                          result=result, regressions=worst)


TESTED = ("regression", "improvement", "unchanged")  # verdicts of items with samples to judge by


def different_builds(facts: dict) -> bool:
    """Whether a comparison's runs are of different IR or target (compare's facts)."""
    return facts.get("same_ir") is False or facts.get("same_target") is False


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
