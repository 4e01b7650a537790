"""Stored matches: the matching ladder's result per (run, kernel), kept in
kernel_match_results so that reading coverage never re-matches.

What a run's kernels match depends on its model's IR, tasks and graph JSON (not on other
profiles): an ingest that adds those re-matches every run of the model, an ingest of a
profile only its new run, inside the ingest's transaction. A change of the ladder's SQL
re-matches every run.
"""

from __future__ import annotations

import duckdb

from hotdb.duck import scratch
from hotdb.resources import sql


def rematch_models(con: duckdb.DuckDBPyConnection, model_ids: list[int] | None = None) -> None:
    """Replace the stored matches of every run of these models (all models when None)."""
    if model_ids is None:
        model_ids = [row[0] for row in con.execute(sql("load", "model_ids")).fetchall()]
    if not model_ids:
        return
    runs = [row[0] for row in con.execute(sql("load", "runs_of_models"), {"models": model_ids}).fetchall()]
    rematch_runs(con, runs)


def rematch_runs(con: duckdb.DuckDBPyConnection, run_ids: list[int]) -> None:
    if not run_ids:
        return
    con.execute(sql("load", "forget_matches"), {"runs": run_ids})
    with scratch(con, tables=("_matched",)):
        con.execute(sql("load", "match_runs"), {"runs": run_ids})
        con.execute(sql("load", "rematch"), {"runs": run_ids})
