"""Runs against runs: two runs per item with a significance test (queries/commands/compare.sql),
and one item's time across runs (history.sql); the regression gate that judges a comparison."""

from __future__ import annotations

import math

from hotdb import choices
from hotdb.errors import BadArgument, DifferentBuilds, NothingTested, Regressions, UsageError
from hotdb.ops.common import SAMPLES_FLOOR_PCT, check_choice, resolve_run
from hotdb.result import Result
from hotdb.store.database import Database, query

_ITEMS = {"task": "workload", "node": "kernel"}  # what compare.sql pairs by for each choice that is another's name
END_TO_END = "(end to end)"  # the row of the whole run, which the gate does not judge


def compare(database: Database, run_a: str | list[str] | None = None, run_b: str | list[str] | None = None, *,
            by: str = "task", threshold: float = 0.0, model: str | None = None, fail_above_pct: float | None = None,
            allow_different_builds: bool = False, all_items: bool = False) -> Result:
    """Runs A against runs B per task/workload (or kernel, or op), each change judged
    against the noise between runs (queries/_compare_items.sql). A side is a run label, a
    replicate group's name, a comma-separated list of labels, or a list. Default: the
    model's latest run (or replicate group) against the one before it. With
    `fail_above_pct`, a regression gate (`gate`): raises Regressions, NothingTested or
    DifferentBuilds, which carry the comparison. Items no side timed (VM builtins) are left
    out unless `all_items`."""
    check_choice(by, choices.COMPARE_BY, "a comparison is by task, workload, node (kernel) or op")
    _check_gate(fail_above_pct)
    with database.reader() as store:
        if run_a is None or run_b is None:
            run_a, run_b = _default_sides(store, run_a, run_b, model)
        a, label_a = _side(store, run_a)
        b, label_b = _side(store, run_b)
        if set(a) & set(b):
            raise UsageError(f"{label_a} and {label_b} share a run: compare two different sets of runs")
        from hotdb.ops.stats import register

        register(store.con)
        result = query(store, "compare", {"a_runs": a, "b_runs": b, "by": _ITEMS.get(by, by), "threshold_pct": threshold,
                                          "floor_pct": SAMPLES_FLOOR_PCT}, run_a=label_a, run_b=label_b, by=by)
        result.facts.update(query(store, "run_pair", {"a": a[0], "b": b[0]}).records()[0])
        result.facts.update(runs_a=len(a), runs_b=len(b))
        result.facts["busy_runs"] = query(store, "busy_runs", {"runs": a + b}).records()
    measured = result.columns.index("measured")
    kept = [row for row in result.rows if all_items or row[measured]]
    result.facts["unmeasured"] = len(result.rows) - len(kept)
    result.rows = kept
    verdicts: dict[str, int] = {}
    for verdict in result.column("verdict"):
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    result.facts["verdicts"] = verdicts
    if fail_above_pct is not None:
        gate(result, fail_above_pct, allow_different_builds=allow_different_builds)
    return result


def _default_sides(store, run_a, run_b, model: str | None) -> tuple:
    if model is None:
        latest = query(store, "latest_runs", {"model": None, "limit": 1}).rows
        if not latest:
            raise UsageError("the database has no runs yet")
        model = latest[0][2]
    groups = query(store, "latest_groups", {"model": model, "limit": 2}).column("name")
    if len(groups) < 2:
        raise UsageError(f"model {model!r} has fewer than two runs (or replicate groups) to compare; name two runs")
    return (run_a or groups[1]), (run_b or groups[0])


def _side(store, spec: str | list[str]) -> tuple[list[int], str]:
    """(run ids, how the side is named) of one side of a comparison: a run label, else a
    replicate group, else labels separated by commas (a label may hold a comma)."""
    if isinstance(spec, str):
        if query(store, "run_by_label", {"label": spec}).rows:
            return [resolve_run(store, spec)[0]], spec
        group = query(store, "run_group", {"name": spec}).rows
        if group:
            return [row[0] for row in group], spec
        labels = [part.strip() for part in spec.split(",") if part.strip()]
    else:
        labels = list(spec)
    if not labels:
        raise UsageError("name the runs of each side: a label, a replicate group, or labels separated by commas")
    ids = list(dict.fromkeys(resolve_run(store, label)[0] for label in labels))
    return ids, labels[0] if len(labels) == 1 else ",".join(labels)


def _check_gate(fail_above_pct: float | None) -> None:
    if fail_above_pct is not None and (not math.isfinite(fail_above_pct) or fail_above_pct < 0):
        raise BadArgument(f"a regression gate fails above a percentage of 0 or more, not {fail_above_pct}")


def gate(result: Result, fail_above_pct: float, *, allow_different_builds: bool = False) -> None:
    """The regression gate: raises Regressions when an item is slower by more than
    `fail_above_pct` % with 95 % confidence beyond the noise (the lower end of its
    ratio's interval lies above it); NothingTested when no item could be told from the
    noise at all; DifferentBuilds when the runs are of different IR, target or device (a
    change may be the build's, not the code's) unless `allow_different_builds`. The whole run
    is not judged: its kernels are."""
    if different_builds(result.facts) and not allow_different_builds:
        raise DifferentBuilds("the regression gate judges runs of the same IR, target and device; allow different builds "
                              "to judge these anyway", result=result)
    items = [r for r in result.records() if r["item"] != END_TO_END]
    if not any(r["verdict"] in TESTED for r in items):
        # the hottest item's reason: what keeps the items that matter from being judged
        told = sorted((r for r in items if r["reason"]), key=lambda r: -(r["time_a_us"] or r["time_b_us"] or 0))
        raise NothingTested(f"the regression gate tested nothing: none of the {len(items)} items compared could be "
                            "told from the noise between runs" + (f" ({told[0]['reason']})" if told else
                                                                   "; capture each side with --replicates 3"),
                            result=result)
    worst = [r for r in items if r["verdict"] == "slower"
             and r["ratio_low"] is not None and (r["ratio_low"] - 1) * 100 > fail_above_pct]
    if worst:
        raise Regressions(f"{len(worst)} items slower by more than {fail_above_pct:g} % beyond the noise: "
                          + ", ".join(f"{r['task_name'] or r['item']} x{r['ratio']:.3f} "
                                      f"(95 % interval {r['ratio_low']:.3f}-{r['ratio_high']:.3f})" for r in worst),
                          result=result, regressions=worst)


TESTED = ("slower", "faster", "within noise")  # verdicts of items the noise could be judged for


def different_builds(facts: dict) -> bool:
    """Whether a comparison's runs are of different IR, target or device (compare's facts)."""
    return facts.get("same_ir") is False or facts.get("same_target") is False or facts.get("same_device") is False


def history(database: Database, *, model: str | None = None, task: str | None = None,
            workload: str | None = None, device: str | None = None) -> Result:
    """One task's (or workload's) time across runs (measured on `device`, where one is
    named), with run metadata."""
    if task is None and workload is None:
        raise BadArgument("name the item: --task NAME or --workload KEY")
    with database.reader() as store:
        result = query(store, "history", {"model": model, "task": task, "workload": workload, "device": device},
                       item=task or workload, device=device)
    if not result.rows:
        raise UsageError(f"no run{' on device ' + repr(device) if device else ''} has "
                         f"{'task ' + task if task else 'workload ' + workload}")
    return result
