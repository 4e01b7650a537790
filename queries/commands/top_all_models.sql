-- Coverage over many models at once (fleet_task_times): the fewest workloads reaching
-- $coverage_pct of the models' weighted time.
--
-- @param weight_models  the models weighed (a list of names)
-- @param weight_values  their weights, in the same order (a model not listed weighs 1)
-- @param coverage_pct  the coverage cut, in % (NULL: all rows)
-- @param device  only runs measured on this device (run_device.sql; NULL: any)
-- @returns rank, task_name, task_args, workload, time_us, calls, share_pct, cumulative_pct, models,
--          tuner
SELECT rank, task_name, task_args, workload_key AS workload, time_us, calls, share_pct, cumulative_pct, models, tuner
FROM fleet_task_times($weight_models, $weight_values, $device)
WHERE $coverage_pct IS NULL OR cumulative_pct - share_pct < $coverage_pct
ORDER BY rank
