-- Nodes of one run ranked by time; with $coverage_pct, the fewest that reach it.
-- Parameters: $run_id, $coverage_pct (NULL: all rows).
SELECT rank, node_name AS node, func_name, kernel_family, time_us, calls, share_pct, cumulative_pct,
       task_name, workload_key AS workload, method, confidence
FROM node_times
WHERE run_id = $run_id
  AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
ORDER BY rank;
