-- One row per (run, workload): the time a tuning task would act on, ranked, with its
-- share of the run's total time (all nodes, tunable or not) and the cumulative share
-- of this and every faster-ranked row. `top --by task --coverage P` keeps the rows
-- whose cumulative_before_pct is below P: the fewest tasks that reach P.
--
-- @column run_id               the run
-- @column rank                 1 = most time
-- @column workload_key         canonical workload
-- @column tuner                tuner of the task
-- @column task_name            task of the model with this workload; NULL when the model has none
-- @column task_args            the task's args as JSON
-- @column time_us              time of all its nodes per inference, in microseconds
-- @column calls                kernel calls per inference
-- @column share_pct            time_us as a percentage of the run's total time
-- @column cumulative_pct       share of this row and all rows ranked before it
-- @column cumulative_before_pct share of the rows ranked before it
-- @column nodes                node names, in profile order
-- @column kernels              kernel symbols
-- @column methods              ladder rules that matched its nodes
-- @column min_confidence       lowest confidence among its nodes' matches
-- @column flops                floating-point operations of one call of the workload (NULL for 'args' keys)
CREATE OR REPLACE VIEW task_times AS
WITH per_workload AS (  -- the NULL workload holds the time no task acts on: it counts in the total
    SELECT m.run_id, m.workload_key,
           any_value(m.tuner) AS tuner,
           any_value(m.task_name) AS task_name,
           any_value(m.task_args) AS task_args,
           sum(m.time_us) AS time_us,
           sum(m.calls) AS calls,
           list(m.node_name ORDER BY m.node_index) AS nodes,
           list_sort(list_distinct(list(m.func_name))) AS kernels,
           list_sort(list_distinct(list(m.method))) AS methods,
           min(m.confidence) AS min_confidence
    FROM node_matches AS m
    GROUP BY m.run_id, m.workload_key
),
shared AS (  -- windows, not a join with run_totals: a run filter then reaches the nodes scan
    SELECT p.*, 100.0 * p.time_us / nullif(sum(p.time_us) OVER (PARTITION BY p.run_id), 0) AS share_pct
    FROM per_workload AS p
),
ranked AS (
    SELECT s.*, w.flops,
           row_number() OVER (PARTITION BY s.run_id ORDER BY s.time_us DESC, s.workload_key) AS rank
    FROM shared AS s
    LEFT JOIN workloads AS w USING (workload_key)
    WHERE s.workload_key IS NOT NULL
)
SELECT run_id, rank, workload_key, tuner, task_name, task_args, time_us, calls, share_pct,
       sum(share_pct) OVER running AS cumulative_pct,
       coalesce(sum(share_pct) OVER running, 0) - share_pct AS cumulative_before_pct,
       nodes, kernels, methods, min_confidence, flops
FROM ranked
WINDOW running AS (PARTITION BY run_id ORDER BY rank ROWS UNBOUNDED PRECEDING);
