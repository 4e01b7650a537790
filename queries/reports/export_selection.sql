-- The tasks a coverage cut selects in one run: every task of the model whose workload
-- is among the fewest workloads reaching $coverage_pct (a workload with several
-- templates, e.g. dense_nopack.x86 and dense_pack.x86, selects them all), and the
-- selected workloads no task of the model computes (task_name NULL).
-- Parameters: $run_id, $coverage_pct (NULL: every matched workload).
WITH selected AS (
    SELECT * FROM task_times
    WHERE run_id = $run_id AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
)
SELECT s.rank, t.tuner, t.task_name, t.task_args, s.workload_key AS workload, t.weight, t.structural_hash,
       s.calls, s.time_us, s.share_pct, s.cumulative_pct, coalesce(t.record_count, 0) AS records,
       t.best_cost_us, t.first_source_id AS source_id, t.first_task_index AS task_index,
       t.task_name IS NOT DISTINCT FROM s.task_name AS chosen  -- the task the run's kernels matched
FROM selected AS s
JOIN runs AS r USING (run_id)
LEFT JOIN model_tasks AS t ON t.model_id = r.model_id
     AND coalesce(t.workload_key, 'args ' || t.args_flat) = s.workload_key
ORDER BY s.rank, t.tuner, t.task_name, t.task_args;
