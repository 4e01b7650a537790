-- The tasks a coverage cut over many models selects (`hotdb export --all-models`): every
-- task of any model computing one of the fewest workloads that reach $coverage_pct of the
-- models' weighted time (fleet_task_times), a task shared by several models listed once,
-- and the selected workloads no task of any model computes (task_name NULL). A workload's
-- time and share are given once, on its chosen task (the one fleet_task_times names, else
-- the first by name); its other tasks (other models', other templates) have none, so that
-- exported times and shares add up to at most the models'. Columns as
-- export_selection.sql, plus model_ids: the models whose tuning records count.
--
-- @param weight_models  the models weighed (a list of names)
-- @param weight_values  their weights, in the same order (a model not listed weighs 1)
-- @param coverage_pct  the coverage cut, in % (NULL: every matched workload)
-- @param device  only runs measured on this device (run_device.sql; NULL: any)
-- @returns rank, tuner, task_name, task_args, workload, weight, structural_hash, calls, time_us,
--          share_pct, cumulative_pct, records, best_cost_us, source_id, task_index, chosen,
--          task_share_pct, model_ids
WITH selected AS (
    SELECT * FROM fleet_task_times($weight_models, $weight_values, $device)
    WHERE $coverage_pct IS NULL OR cumulative_pct - share_pct < $coverage_pct
),
tasks AS (
    SELECT s.rank, t.tuner, t.task_name, t.task_args, s.workload_key AS workload, t.weight, t.structural_hash,
           s.calls, s.time_us, s.share_pct, s.cumulative_pct, t.record_count, t.best_cost_us,
           t.first_source_id, t.first_task_index, t.model_id, s.task_name AS named_task
    FROM selected AS s
    JOIN model_tasks AS t ON coalesce(t.workload_key, 'args ' || t.args_flat) = s.workload_key
),
per_task AS (
    SELECT min(rank) AS rank, tuner, task_name, task_args, any_value(workload) AS workload, max(weight) AS weight,
           any_value(structural_hash) AS structural_hash, any_value(calls) AS calls, any_value(time_us) AS time_us,
           any_value(share_pct) AS share_pct, any_value(cumulative_pct) AS cumulative_pct,
           sum(record_count) AS records, min(best_cost_us) AS best_cost_us,
           arg_min(first_source_id, model_id) AS source_id, arg_min(first_task_index, model_id) AS task_index,
           bool_or(task_name = named_task) AS named,
           list_sort(list_distinct(list(model_id))) AS model_ids
    FROM tasks
    GROUP BY tuner, task_name, task_args
),
ordered AS (
    SELECT *, row_number() OVER (PARTITION BY workload ORDER BY named DESC, task_name, tuner, task_args) = 1 AS chosen
    FROM per_task
)
SELECT rank, tuner, task_name, task_args, workload, weight, structural_hash,
       CASE WHEN chosen THEN calls END AS calls, CASE WHEN chosen THEN time_us END AS time_us,
       CASE WHEN chosen THEN share_pct END AS share_pct, CASE WHEN chosen THEN cumulative_pct END AS cumulative_pct,
       records, best_cost_us, source_id, task_index, chosen,
       CASE WHEN chosen THEN share_pct END AS task_share_pct, model_ids
FROM ordered
UNION ALL
SELECT s.rank, NULL, NULL, NULL, s.workload_key, NULL, NULL, s.calls, s.time_us, s.share_pct, s.cumulative_pct,
       0, NULL, NULL, NULL, false, s.share_pct, []
FROM selected AS s
WHERE NOT EXISTS (SELECT 1 FROM tasks AS t WHERE t.workload = s.workload_key)
ORDER BY rank, tuner, task_name, task_args
