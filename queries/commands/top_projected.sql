-- Tasks of one run ranked by the time they will hold once the tuning records the model
-- already has, and those of other models a tune reuses, are applied
-- (projected_task_times); with $coverage_pct, the fewest that reach it.
--
-- @param run_id  the run's id
-- @param coverage_pct  the coverage cut, in % (NULL: all rows)
-- @returns rank, task_name, task_args, workload, time_us, projected_time_us, calls, best_cost_us,
--          tuned, reused, share_pct, cumulative_pct, tuner
SELECT rank, task_name, task_args, workload_key AS workload, time_us, projected_time_us, calls, best_cost_us, tuned,
       reused, share_pct, cumulative_pct, tuner
FROM projected_task_times
WHERE run_id = $run_id
  AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
ORDER BY rank;
