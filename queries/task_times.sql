-- One row per (run, task): the time a tuning task acts on, ranked, with its share of the
-- time tasks can act on (the run's tunable kernels, run_totals.tunable_time_us) and of
-- the whole run, and the cumulative shares of this and every faster-ranked row. A
-- workload no task of the model computes is a row of its own (task_name NULL). Tasks that
-- share a workload (MetaSchedule makes one task per fused function, so conv+add+relu and
-- conv+add+add+relu are two) keep their own calls and time; `workload_tasks` lists them.
-- `top --by task --coverage P` keeps the rows whose cumulative_before_pct is below P:
-- the fewest tasks that reach P % of the tunable time.
--
-- @column run_id               the run
-- @column rank                 1 = most time
-- @column workload_key         canonical workload
-- @column tuner                tuner of the task
-- @column task_name            task of the model its kernels act through; NULL when the model has none
-- @column task_args            the task's args as JSON
-- @column time_us              time of its nodes per inference, in microseconds
-- @column calls                kernel calls per inference
-- @column share_pct            time_us as a percentage of the run's tunable kernel time
-- @column cumulative_pct       share_pct of this row and all rows ranked before it
-- @column cumulative_before_pct share_pct of the rows ranked before it
-- @column run_share_pct        time_us as a percentage of the run's whole time (kernels, untunable
--                              kernels and overhead)
-- @column run_cumulative_pct   run_share_pct of this row and all rows ranked before it
-- @column run_cumulative_before_pct run_share_pct of the rows ranked before it
-- @column workload_tasks       when several tasks share the workload: each as 'name (share_pct %)', by time
-- @column nodes                node names, in profile order
-- @column kernels              kernel symbols
-- @column methods              ladder rules that matched its nodes
-- @column min_confidence       lowest confidence among its nodes' matches
-- @column flops                floating-point operations of one call of the workload (NULL for 'args' keys)
CREATE OR REPLACE VIEW task_times AS
WITH per_task AS (
    SELECT m.run_id, m.workload_key, m.tuner, m.task_name, m.task_args,
           sum(m.time_us) AS time_us,
           sum(m.calls) AS calls,
           list(m.node_name ORDER BY m.node_index) AS nodes,
           list_sort(list_distinct(list(m.func_name))) AS kernels,
           list_sort(list_distinct(list(m.method))) AS methods,
           min(m.confidence) AS min_confidence
    FROM node_matches AS m
    WHERE m.workload_key IS NOT NULL
    GROUP BY m.run_id, m.workload_key, m.tuner, m.task_name, m.task_args
),
bases AS (  -- windows over the run's nodes, not a join with run_totals: a run filter then reaches the scan
    SELECT DISTINCT run_id,
           sum(time_us) OVER (PARTITION BY run_id) AS run_time_us,
           sum(time_us) FILTER (time_class = 'tunable') OVER (PARTITION BY run_id) AS tunable_time_us
    FROM node_matches
),
shared AS (
    SELECT p.*,
           100.0 * p.time_us / nullif(b.tunable_time_us, 0) AS share_pct,
           100.0 * p.time_us / nullif(b.run_time_us, 0) AS run_share_pct
    FROM per_task AS p
    JOIN bases AS b USING (run_id)
),
ranked AS (
    SELECT s.*, w.flops,
           row_number() OVER (PARTITION BY s.run_id ORDER BY s.time_us DESC, s.workload_key, s.task_name) AS rank,
           CASE WHEN count(*) OVER same_workload > 1
                THEN list(coalesce(s.task_name, '(no task)') || ' (' || round(s.share_pct, 1) || ' %)')
                     OVER (same_workload ORDER BY s.time_us DESC, s.task_name
                           ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) END AS workload_tasks
    FROM shared AS s
    LEFT JOIN workloads AS w USING (workload_key)
    WINDOW same_workload AS (PARTITION BY s.run_id, s.workload_key)
)
SELECT run_id, rank, workload_key, tuner, task_name, task_args, time_us, calls, share_pct,
       sum(share_pct) OVER running AS cumulative_pct,
       coalesce(sum(share_pct) OVER running, 0) - share_pct AS cumulative_before_pct,
       run_share_pct,
       sum(run_share_pct) OVER running AS run_cumulative_pct,
       coalesce(sum(run_share_pct) OVER running, 0) - run_share_pct AS run_cumulative_before_pct,
       workload_tasks, nodes, kernels, methods, min_confidence, flops
FROM ranked
WINDOW running AS (PARTITION BY run_id ORDER BY rank ROWS UNBOUNDED PRECEDING);
