-- The tasks a coverage cut selects in one run: every task of the model whose workload
-- is among the fewest workloads reaching $coverage_pct (a workload with several
-- templates, e.g. dense_nopack.x86 and dense_pack.x86, selects them all), and the
-- selected workloads no task of the model computes (task_name NULL).
-- `chosen` marks the tasks the run's kernels act through: MetaSchedule and Ansor make one
-- task per fused function, so a workload fused with two epilogues (conv+add+relu and
-- conv+add+add+relu) is two tasks, each named like its kernel; otherwise the task the
-- workload matched. `task_share_pct` is the share of run time of the kernels carrying the
-- task's name, else the workload's share.
-- Parameters: $run_id, $coverage_pct (NULL: every matched workload).
WITH selected AS (
    SELECT * FROM task_times
    WHERE run_id = $run_id AND ($coverage_pct IS NULL OR cumulative_before_pct < $coverage_pct)
),
named AS (
    SELECT workload_key, kernel_symbol(func_name) AS symbol,
           sum(time_us) AS time_us
    FROM kernel_matches
    WHERE run_id = $run_id AND method = 'name'
    GROUP BY ALL
),
candidates AS (
    SELECT s.*, t.tuner AS task_tuner, t.task_name AS name_of_task, t.task_args AS args_of_task, t.weight,
           t.structural_hash, t.record_count, t.best_cost_us, t.first_source_id, t.first_task_index,
           n.time_us AS named_time_us,
           bool_or(n.symbol IS NOT NULL) OVER (PARTITION BY s.workload_key, t.tuner) AS workload_named
    FROM selected AS s
    JOIN runs AS r USING (run_id)
    LEFT JOIN model_tasks AS t ON t.model_id = r.model_id
         AND coalesce(t.workload_key, 'args ' || t.args_flat) = s.workload_key
    LEFT JOIN named AS n ON n.workload_key = s.workload_key
         AND n.symbol = kernel_symbol(t.task_name)
)
SELECT c.rank, c.task_tuner AS tuner, c.name_of_task AS task_name, c.args_of_task AS task_args,
       c.workload_key AS workload, c.weight, c.structural_hash, c.calls, c.time_us, c.share_pct, c.cumulative_pct,
       coalesce(c.record_count, 0) AS records, c.best_cost_us, c.first_source_id AS source_id,
       c.first_task_index AS task_index,
       CASE WHEN c.workload_named THEN c.named_time_us IS NOT NULL
            ELSE c.name_of_task IS NOT DISTINCT FROM c.task_name END AS chosen,
       coalesce(100.0 * c.named_time_us / nullif(t.total_time_us, 0), c.share_pct) AS task_share_pct
FROM candidates AS c
JOIN run_totals AS t USING (run_id)
ORDER BY c.rank, c.task_tuner, c.name_of_task, c.args_of_task;
