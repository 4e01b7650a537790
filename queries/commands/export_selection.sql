-- The tasks a coverage cut selects in one run: the task_times rows among the fewest that
-- reach $coverage_pct, each with its own time and share (tasks that share a workload,
-- like MetaSchedule's one task per fused function, are rows of their own), and after
-- each AutoTVM task the model's other templates for the same workload (dense_nopack.x86
-- beside dense_pack.x86: alternatives a tuner should try), with `chosen` false and no
-- time or share of their own, so that exported times and shares add up to at most the
-- run's. A selected workload no task of the model computes is a row with task_name NULL.
-- `task_share_pct` is the share a tuner should weigh the task by (the row's share).
--
-- @param run_id  the run's id
-- @param coverage_pct  the coverage cut, in % (NULL: every matched workload)
-- @param basis  'tunable' | 'run': shares of the tunable kernel time or of the whole run
-- @returns rank, tuner, task_name, task_args, workload, weight, structural_hash, calls, time_us,
--          share_pct, cumulative_pct, records, best_cost_us, source_id, task_index, chosen,
--          task_share_pct
WITH selected AS (
    SELECT t.*,
           CASE WHEN $basis = 'run' THEN t.run_share_pct ELSE t.share_pct END AS basis_share_pct,
           CASE WHEN $basis = 'run' THEN t.run_cumulative_pct ELSE t.cumulative_pct END AS basis_cumulative_pct,
           r.model_id
    FROM task_times AS t
    JOIN runs AS r USING (run_id)
    WHERE t.run_id = $run_id
      AND ($coverage_pct IS NULL
           OR CASE WHEN $basis = 'run' THEN t.run_cumulative_before_pct ELSE t.cumulative_before_pct END < $coverage_pct)
),
chosen AS (
    SELECT s.rank, s.tuner, s.task_name, s.task_args, s.workload_key AS workload, m.weight, m.structural_hash,
           s.calls, s.time_us, s.basis_share_pct AS share_pct, s.basis_cumulative_pct AS cumulative_pct,
           coalesce(m.record_count, 0) AS records, m.best_cost_us, m.first_source_id AS source_id,
           m.first_task_index AS task_index, s.task_name IS NOT NULL AS chosen, s.basis_share_pct AS task_share_pct
    FROM selected AS s
    LEFT JOIN model_tasks AS m ON m.model_id = s.model_id AND m.tuner = s.tuner
         AND m.task_name = s.task_name AND m.task_args = s.task_args
),
alternatives AS (  -- other AutoTVM templates of a selected workload, not themselves a selected row
    SELECT min(s.rank) AS rank, m.tuner, m.task_name, m.task_args, s.workload_key AS workload, m.weight,
           m.structural_hash, NULL::HUGEINT AS calls, NULL::DOUBLE AS time_us, NULL::DOUBLE AS share_pct,
           NULL::DOUBLE AS cumulative_pct, m.record_count AS records, m.best_cost_us, m.first_source_id AS source_id,
           m.first_task_index AS task_index, false AS chosen, NULL::DOUBLE AS task_share_pct
    FROM selected AS s
    JOIN model_tasks AS m ON m.model_id = s.model_id AND m.tuner = 'autotvm' AND s.tuner = 'autotvm'
         AND m.workload_key = s.workload_key
    WHERE NOT EXISTS (SELECT 1 FROM selected AS o WHERE o.tuner = m.tuner AND o.task_name = m.task_name
                      AND o.task_args = m.task_args)
    GROUP BY ALL
)
SELECT * FROM chosen
UNION ALL
SELECT * FROM alternatives
ORDER BY rank, chosen DESC, tuner, task_name, task_args;
