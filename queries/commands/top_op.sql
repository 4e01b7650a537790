-- Op families of one run ranked by time; with $coverage_pct, the fewest that reach it.
--
-- @param run_id  the run's id
-- @param coverage_pct  the coverage cut, in % (NULL: all rows)
-- @returns rank, op, tunable, time_us, calls, kernels, share_pct, cumulative_pct, matched_pct
SELECT rank, kernel_family AS op, tunable, time_us, calls, kernels, share_pct, cumulative_pct, matched_pct
FROM op_times
WHERE run_id = $run_id
  AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
ORDER BY rank;
