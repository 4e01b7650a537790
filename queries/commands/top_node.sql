-- Nodes of one run ranked by time; with $coverage_pct, the fewest that reach it. Where
-- the profile kept repeated samples of a node (debug dumps, live captures), their count,
-- minimum, median, maximum and sample standard deviation, as nsys stats gives per kernel.
--
-- @param run_id  the run's id
-- @param coverage_pct  the coverage cut, in % (NULL: all rows)
-- @returns rank, node, func_name, kernel_family, time_us, calls, share_pct, cumulative_pct,
--          samples, min_us, median_us, max_us, stddev_us, task_name, workload, method, confidence
WITH samples AS (
    SELECT node_index, count(*) AS samples, min(time_us) AS min_us, median(time_us) AS median_us,
           max(time_us) AS max_us, stddev_samp(time_us) AS stddev_us
    FROM node_samples
    WHERE run_id = $run_id
    GROUP BY node_index
)
SELECT rank, node_name AS node, func_name, kernel_family, time_us, calls, share_pct, cumulative_pct,
       s.samples, s.min_us, s.median_us, s.max_us, s.stddev_us,
       task_name, workload_key AS workload, method, confidence
FROM node_times AS t
LEFT JOIN samples AS s USING (node_index)
WHERE t.run_id = $run_id
  AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
ORDER BY rank;
