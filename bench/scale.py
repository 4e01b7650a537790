"""Coverage at scale: `hotdb top --coverage 90` over a database of >= 10 M nodes against
the hand-written window query on the same database, in one process.

The database is grown from the bundled VGG-16 build, ingested by hotdb (IR, tasks, a
profile; the matching ladder runs once per model at ingest): its model is copied to
`--models` models, and its run (its 26 nodes repeated to `--run-nodes`) to as many runs
as reach `--nodes` nodes, each node's time
drawn within +-20 % of the original so that rankings differ between runs. Stored matches
are copied with the run, as an ingest of an identical run would store them.

    python bench/scale.py [--nodes 10000000] [--models 40] [--run-nodes 520] [--db PATH] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from hotdb.api import Hotdb
from hotdb.examples import example_files
from hotdb.store.connection import Store

HAND_PER_RUN = """
WITH per_workload AS (
    SELECT m.workload_key, sum(n.time_us) AS time_us
    FROM nodes AS n JOIN kernel_match_results AS m USING (run_id, func_name)
    WHERE n.run_id = $run_id AND n.output_index = 0 AND m.workload_key IS NOT NULL
    GROUP BY m.workload_key
), total AS (
    SELECT sum(time_us) AS time_us FROM nodes WHERE run_id = $run_id AND output_index = 0
), shared AS (
    SELECT p.workload_key, p.time_us, 100.0 * p.time_us / t.time_us AS share_pct
    FROM per_workload AS p, total AS t
)
SELECT workload_key, time_us, share_pct,
       sum(share_pct) OVER (ORDER BY time_us DESC, workload_key ROWS UNBOUNDED PRECEDING) AS cumulative_pct
FROM shared
QUALIFY cumulative_pct - share_pct < 90
ORDER BY time_us DESC
"""

HAND_ALL_MODELS = """
WITH latest AS (
    SELECT arg_max(run_id, created_at) AS run_id FROM runs GROUP BY model_id
), per_workload AS (
    SELECT m.workload_key, sum(n.time_us) AS time_us
    FROM nodes AS n JOIN kernel_match_results AS m USING (run_id, func_name)
    WHERE n.run_id IN (SELECT run_id FROM latest) AND n.output_index = 0 AND m.workload_key IS NOT NULL
    GROUP BY m.workload_key
), total AS (
    SELECT sum(time_us) AS time_us FROM nodes WHERE run_id IN (SELECT run_id FROM latest) AND output_index = 0
), shared AS (
    SELECT p.workload_key, p.time_us, 100.0 * p.time_us / t.time_us AS share_pct
    FROM per_workload AS p, total AS t
)
SELECT workload_key, time_us, share_pct,
       sum(share_pct) OVER (ORDER BY time_us DESC, workload_key ROWS UNBOUNDED PRECEDING) AS cumulative_pct
FROM shared
QUALIFY cumulative_pct - share_pct < 90
ORDER BY time_us DESC
"""

NON_PROFILE_TABLES = ("ir_calls", "tasks", "tuning_records", "graph_nodes")


def grow(path: Path, nodes: int, models: int, run_nodes: int) -> None:
    """The bundled VGG-16 build, ingested by hotdb, its run made `run_nodes` long, copied to
    `models` models and `nodes` nodes."""
    api = Hotdb(path)
    api.ingest(example_files("vgg16")[:3], model="vgg16-0", run="vgg16-0-0")
    con = duckdb.connect(str(path))
    # the run repeats the network's nodes, as a profile of several inferences does; each kernel
    # keeps its match (its calls and time scaled), as the ladder's `name`/`workload` rules would
    # (repeated calls share their signature rows, as a real profile's do)
    vgg_nodes = con.execute("SELECT count(*) FROM nodes").fetchall()[0][0]
    repeat = max(1, run_nodes // vgg_nodes)
    con.execute("""
        INSERT INTO node_calls SELECT o.* REPLACE (o.node_index + k * $n AS node_index, o.time_us * (0.8 + 0.4 * random()) AS time_us)
        FROM (SELECT * FROM node_calls WHERE run_id = 1) AS o, range(1, $repeat) AS t(k)""", {"n": vgg_nodes, "repeat": repeat})
    con.execute("UPDATE kernel_match_results SET calls = calls * $r, time_us = time_us * $r", {"r": repeat})
    per_run = con.execute("SELECT count(*) FROM nodes").fetchall()[0][0]
    runs_per_model = -(-nodes // (per_run * models))
    con.execute("BEGIN")
    # models 1..models-1: the same sources, IR calls and tasks under new ids
    con.execute("""
        CREATE TEMP TABLE copies AS SELECT i AS copy, i * 1000 AS id_offset FROM range(1, $models) AS t(i)""",
                {"models": models})
    con.execute("INSERT INTO models SELECT m.model_id + c.id_offset, 'vgg16-' || c.copy, m.created_at FROM models AS m, copies AS c")
    con.execute("INSERT INTO ingests SELECT i.ingest_id + c.id_offset, i.model_id + c.id_offset, i.started_at, i.hotdb_version FROM ingests AS i, copies AS c")
    con.execute("""INSERT INTO sources SELECT s.* REPLACE (s.source_id + c.id_offset AS source_id, s.ingest_id + c.id_offset AS ingest_id,
                   s.model_id + c.id_offset AS model_id) FROM sources AS s, copies AS c""")
    for table in NON_PROFILE_TABLES:
        con.execute(f"INSERT INTO {table} SELECT t.* REPLACE (t.source_id + c.id_offset AS source_id) FROM {table} AS t, copies AS c")
    # run k of a model gets run_id model_id * 1e6 + k; run 0 of the first model is the ingested one
    con.execute("""
        CREATE TEMP TABLE new_runs AS
        SELECT m.model_id, m.name, k, m.model_id * 1000000 + k AS run_id, m.model_id - 1 AS id_offset
        FROM models AS m, range(0, $runs) AS t(k)
        WHERE NOT (m.model_id = 1 AND k = 0)""", {"runs": runs_per_model})
    con.execute("""
        INSERT INTO runs SELECT r.* REPLACE (n.run_id AS run_id, n.model_id AS model_id, r.ingest_id + n.id_offset AS ingest_id,
                                              r.source_id + n.id_offset AS source_id, n.name || '-' || n.k AS label,
                                              r.created_at + to_seconds(n.k) AS created_at)
        FROM runs AS r, new_runs AS n WHERE r.run_id = 1""")
    con.execute("""
        INSERT INTO node_signatures SELECT o.* REPLACE (n.run_id AS run_id)
        FROM new_runs AS n, (SELECT * FROM node_signatures WHERE run_id = 1) AS o ORDER BY n.run_id, o.signature_id""")
    con.execute("""
        INSERT INTO node_calls SELECT o.* REPLACE (n.run_id AS run_id, o.time_us * (0.8 + 0.4 * random()) AS time_us)
        FROM new_runs AS n, (SELECT * FROM node_calls WHERE run_id = 1) AS o ORDER BY n.run_id, o.node_index""")
    con.execute("""
        INSERT INTO kernel_match_results SELECT o.* REPLACE (n.run_id AS run_id)
        FROM new_runs AS n, (SELECT * FROM kernel_match_results WHERE run_id = 1) AS o ORDER BY n.run_id""")
    con.execute("COMMIT")
    con.execute("CHECKPOINT")
    con.close()


def timed(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10_000_000)
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument("--run-nodes", type=int, default=520, help="nodes per run (the VGG-16 run's 26, repeated)")
    parser.add_argument("--db", type=Path, help="reuse (or create) this database")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    path = args.db or Path(tempfile.mkdtemp(prefix="hotdb-scale-")) / "scale.duckdb"
    if not path.exists():
        started = time.perf_counter()
        grow(path, args.nodes, args.models, args.run_nodes)
        print(f"grew {path} in {time.perf_counter() - started:.0f} s", flush=True)
    api = Hotdb(path)
    con = duckdb.connect(str(path), read_only=True)
    nodes, runs, models = con.execute(
        "SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM runs), (SELECT count(*) FROM models)").fetchall()[0]
    some_run, = con.execute("SELECT run_id FROM runs ORDER BY run_id LIMIT 1 OFFSET (SELECT count(*) // 2 FROM runs)").fetchall()[0]
    label, model = con.execute("SELECT r.label, m.name FROM runs r JOIN models m USING (model_id) WHERE run_id = ?",
                               [some_run]).fetchall()[0]
    latest_of_model, = con.execute("SELECT max(run_id) FROM runs JOIN models USING (model_id) WHERE name = ?",
                                   [model]).fetchall()[0]
    con.close()
    print(f"{nodes:,} nodes, {runs:,} runs, {models} models, {path.stat().st_size / 2**30:.2f} GiB")

    def hand(sql: str, run_id: int | None = None):
        def run():
            with duckdb.connect(str(path), read_only=True) as c:  # hotdb opens the database too
                return c.execute(sql, {"run_id": run_id} if run_id is not None else {}).fetchall()
        return run

    store = Store(path, create=False, read_only=True)  # one open connection for both queries

    def on_open(sql: str, params: dict):
        return lambda: store.con.execute(sql, params).fetchall()

    all_params = {"weight_models": [], "weight_values": [], "coverage_pct": 90.0}
    cases = [
        ("per run (`top --coverage 90 --run`)", lambda: api.top(coverage=90, run=label), hand(HAND_PER_RUN, some_run),
         on_open(store.command_sql("top_task"), {"run_id": some_run, "coverage_pct": 90.0}),
         on_open(HAND_PER_RUN, {"run_id": some_run})),
        ("per model (`--model`, its latest run)", lambda: api.top(coverage=90, model=model), hand(HAND_PER_RUN, latest_of_model),
         on_open(store.command_sql("top_task"), {"run_id": latest_of_model, "coverage_pct": 90.0}),
         on_open(HAND_PER_RUN, {"run_id": latest_of_model})),
        ("all models (`--all-models`)", lambda: api.top(coverage=90, all_models=True), hand(HAND_ALL_MODELS),
         on_open(store.command_sql("top_all_models"), all_params), on_open(HAND_ALL_MODELS, {})),
    ]
    print("| query | hotdb query (s) | hand-written query (s) | ratio | hotdb `top`, open to close (s) "
          "| hand-written, open to close (s) | ratio | tasks (hotdb / hand) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, ours, theirs, our_query, their_query in cases:
        query_s, _ = timed(our_query, args.repeat)
        hand_query_s, _ = timed(their_query, args.repeat)
        ours_s, result = timed(ours, args.repeat)
        hand_s, rows = timed(theirs, args.repeat)
        assert [r[result.columns.index("workload")] for r in result.rows] == [r[0] for r in rows], name
        print(f"| {name} | {query_s:.3f} | {hand_query_s:.3f} | {query_s / hand_query_s:.2f} | {ours_s:.3f} | {hand_s:.3f} "
              f"| {ours_s / hand_s:.2f} | {len(result.rows)} / {len(rows)} |", flush=True)
    store.close()

if __name__ == "__main__":
    main()
