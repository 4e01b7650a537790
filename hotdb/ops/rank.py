"""Ranking and coverage: the tasks (nodes, op families) that hold a run's time, and the
fewest that reach a share of it (queries/commands/top_*.sql, over task_times & co)."""

from __future__ import annotations

from hotdb import choices
from hotdb.errors import UsageError
from hotdb.ops.common import check_choice, check_coverage, check_share_of, check_weights, fleet_params, reached_pct, resolve_run
from hotdb.result import Result
from hotdb.store.database import Database, query


def top(database: Database, *, by: str = "task", coverage: float | None = None, run: str | None = None,
        model: str | None = None, all_models: bool = False, weights: dict[str, float] | None = None,
        share_of: str = "tunable", projected: bool = False, totals: bool = True, device: str | None = None) -> Result:
    """Rows ranked by time with share and cumulative share; with `coverage`, the fewest
    rows whose cumulative share reaches it. With `projected`, tasks ranked by the time
    they will hold once the model's tuning records are applied (projected_task_times). Tasks' shares are of the run's tunable kernel
    time (`share_of="run"`: of its whole time); nodes' and op families' of the whole run.
    With `all_models`, tasks over the latest run of every model (times scaled by
    `weights`; only runs measured on `device`, where one is named: queries/run_device.sql),
    a workload shared by models counted once."""
    check_coverage(coverage)
    check_share_of(share_of)
    check_weights(weights)
    asked_by = by
    if device is not None and not all_models:
        raise UsageError("a device filters a ranking over all models (--all-models); one run's ranking names its run")
    if all_models:
        if by != "task" or run or model:
            raise UsageError("a ranking over all models ranks tasks over every model's latest run; "
                             "it takes no run, model or other ranking")
        with database.reader() as store:
            unknown = sorted(set(weights or {}) - set(query(store, "model_names").column("name")))
            if unknown:
                raise UsageError(f"weights name unknown models: {', '.join(unknown)}")
            result = query(store, "top_all_models", fleet_params(weights, coverage, device), by="task",
                           coverage=coverage, all_models=True, device=device)
        result.facts["reached_pct"] = reached_pct(result)
        return result
    check_choice(by, choices.TOP_BY, f"a ranking is by {', '.join(choices.TOP_BY)}")
    if projected and (by != "task" or share_of != "tunable"):
        raise UsageError("a projected ranking ranks tasks by their share of the projected tunable time")
    with database.reader() as store:
        artifacts = query(store, "run_context", {"label": run, "model": model}).records()
        if not artifacts:
            resolve_run(store, run, model)  # raises, saying which run there is not
        artifacts = artifacts[0]
        run_id, label = artifacts.pop("run_id"), artifacts.pop("label")
        if by == "task" and not artifacts["has_tasks"] and not projected:
            by = "op"  # a profile alone: its kernel families answer, and the notes say what would add tasks
        params = {"run_id": run_id, "coverage_pct": coverage}
        if by == "task":
            params["basis"] = share_of
        if projected:
            del params["basis"]
        result = query(store, "top_projected" if projected else f"top_{by}", params, run=label, by=by,
                       coverage=coverage, share_of=share_of if by == "task" else "run", projected=projected)
        if totals:
            result.facts.update(query(store, "run_facts", {"run_id": run_id}).records()[0])
    result.facts.update(artifacts, asked_by=asked_by)
    result.facts["reached_pct"] = reached_pct(result)
    return result
