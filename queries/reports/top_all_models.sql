-- Coverage over many models at once: the latest run of each model, its times scaled by
-- the model's weight ($weights: MAP model name -> weight, default 1), the same workload
-- in several models counted as one tuning task with summed time.
-- Parameters: $weight_models, $weight_values (parallel lists: model name, weight; a model
-- not listed weighs 1), $coverage_pct (NULL: all rows).
WITH latest AS (
    SELECT r.model_id, arg_max(r.run_id, r.created_at) AS run_id FROM runs AS r GROUP BY r.model_id
),
weighted AS (
    SELECT l.run_id, m.name AS model, coalesce(CAST($weight_values AS DOUBLE[])[list_position(CAST($weight_models AS VARCHAR[]), m.name)], 1.0) AS weight
    FROM latest AS l JOIN models AS m USING (model_id)
),
per_workload AS (  -- IN reaches the nodes scan; a join with `latest` would not
    SELECT p.workload_key,
           any_value(p.task_name) AS task_name, any_value(p.task_args) AS task_args, any_value(p.tuner) AS tuner,
           sum(p.time_us * w.weight) AS time_us, sum(p.calls) AS calls,
           list_sort(list_distinct(list(w.model))) AS models
    FROM node_matches AS p JOIN weighted AS w USING (run_id)
    WHERE p.run_id IN (SELECT run_id FROM latest)
    GROUP BY p.workload_key
),
ranked AS (  -- the NULL workload (time no task acts on) counts in the total only
    SELECT p.*, 100.0 * p.time_us / sum(p.time_us) OVER () AS share_pct FROM per_workload AS p
),
running AS (
    SELECT r.*, row_number() OVER (ORDER BY r.time_us DESC, r.workload_key) AS rank,
           sum(share_pct) OVER (ORDER BY r.time_us DESC, r.workload_key ROWS UNBOUNDED PRECEDING) AS cumulative_pct
    FROM ranked AS r WHERE r.workload_key IS NOT NULL
)
SELECT rank, task_name, task_args, workload_key AS workload, time_us, calls, share_pct, cumulative_pct, models, tuner
FROM running
WHERE $coverage_pct IS NULL OR cumulative_pct - share_pct < $coverage_pct
ORDER BY rank;
