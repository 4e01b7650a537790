-- Tasks of one run ranked by time; with $coverage_pct, the fewest that reach it.
-- Parameters: $run_id, $coverage_pct (NULL: all rows).
SELECT rank, task_name, task_args, workload_key AS workload, time_us, calls, share_pct,
       cumulative_pct, nodes, methods, min_confidence AS confidence, tuner
FROM task_times
WHERE run_id = $run_id
  AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
ORDER BY rank;
