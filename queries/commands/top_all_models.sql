-- Coverage over many models at once (fleet_task_times): the fewest workloads reaching
-- $coverage_pct of the models' weighted time.
-- Parameters: $weight_models, $weight_values (parallel lists: model name, weight; a model
-- not listed weighs 1), $coverage_pct (NULL: all rows).
SELECT rank, task_name, task_args, workload_key AS workload, time_us, calls, share_pct, cumulative_pct, models, tuner
FROM fleet_task_times($weight_models, $weight_values)
WHERE $coverage_pct IS NULL OR cumulative_pct - share_pct < $coverage_pct
ORDER BY rank
