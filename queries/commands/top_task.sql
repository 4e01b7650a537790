-- Tasks of one run ranked by time; with $coverage_pct, the fewest that reach it. Shares
-- are of the run's tunable kernel time, or with $basis = 'run' of its whole time (the
-- overhead and untunable kernels included, which no task can reach).
--
-- @param run_id  the run's id
-- @param coverage_pct  the coverage cut, in % (NULL: all rows)
-- @param basis  'tunable' | 'run': shares of the tunable kernel time or of the whole run
-- @returns rank, task_name, task_args, workload, time_us, calls, share_pct, cumulative_pct,
--          workload_tasks, nodes, methods, confidence, tuner
SELECT rank, task_name, task_args, workload_key AS workload, time_us, calls,
       CASE WHEN $basis = 'run' THEN run_share_pct ELSE share_pct END AS share_pct,
       CASE WHEN $basis = 'run' THEN run_cumulative_pct ELSE cumulative_pct END AS cumulative_pct,
       workload_tasks, nodes, methods, min_confidence AS confidence, tuner
FROM task_times
WHERE run_id = $run_id
  AND ($coverage_pct IS NULL
       OR CASE WHEN $basis = 'run' THEN run_cumulative_before_pct ELSE cumulative_before_pct END < $coverage_pct)
ORDER BY rank;
