-- One row per (run, task): the time the task would hold in the run once the best tuning
-- record the model has for it were applied, ranked by that time, for a user who plans the
-- next tune by hand (`hotdb top --projected`): the tasks already tuned fall down the
-- ranking, and the coverage cut reaches the ones that are now the hotspot. A task's
-- projected time is its best record's measured cost times its calls per inference, or
-- its time in the run where that is lower (the run already has the tuned kernel) or where
-- it has no valid record. A MetaSchedule task's best record may be another model's, of
-- the same workload (structural hash) on the run's target: `hotdb tune` starts from it
-- (queries/commands/warm_records.sql), and its database applies it. Shares are of the
-- run's projected tunable time.
--
-- @column run_id               the run
-- @column rank                 1 = most projected time
-- @column workload_key         canonical workload
-- @column tuner                tuner of the task
-- @column task_name            task of the model; NULL for a workload no task of the model computes
-- @column task_args            the task's args as JSON
-- @column time_us              time of its nodes in the run, per inference, in microseconds
-- @column projected_time_us    time per inference once its best record is applied, in microseconds
-- @column calls                kernel calls per inference
-- @column best_cost_us         its fastest valid tuning record's cost per call, in microseconds (NULL: none)
-- @column reused               whether that record is another model's (same workload and target), which a tune reuses
-- @column tuned                whether a valid tuning record lowers its time below the run's
-- @column share_pct            projected_time_us as a percentage of the run's projected tunable time
-- @column cumulative_pct       share_pct of this row and all rows ranked before it
-- @column cumulative_before_pct share_pct of the rows ranked before it
CREATE OR REPLACE VIEW projected_task_times AS
WITH reusable AS (
    SELECT t.structural_hash, r.target, min(list_avg(r.costs_s)) * 1e6 AS best_cost_us
    FROM tuning_records AS r
    JOIN tasks AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
    WHERE t.tuner = 'meta_schedule' AND t.structural_hash IS NOT NULL AND r.error_no = 0
    GROUP BY ALL
),
best AS (
    SELECT t.run_id, t.workload_key, t.tuner, t.task_name, t.task_args, t.time_us, t.calls,
           least(m.best_cost_us, u.best_cost_us) AS best_cost_us,
           coalesce(u.best_cost_us < m.best_cost_us OR (m.best_cost_us IS NULL AND u.best_cost_us IS NOT NULL),
                    false) AS reused
    FROM task_times AS t
    JOIN runs AS r USING (run_id)
    LEFT JOIN model_tasks AS m
           ON m.model_id = r.model_id AND m.tuner = t.tuner AND m.task_name = t.task_name AND m.task_args = t.task_args
    LEFT JOIN reusable AS u
           ON t.tuner = 'meta_schedule' AND u.structural_hash = m.structural_hash AND u.target = r.target
),
projected AS (
    SELECT *, least(time_us, coalesce(best_cost_us * calls, time_us)) AS projected_time_us
    FROM best
),
ranked AS (
    SELECT *, 100.0 * projected_time_us / nullif(sum(projected_time_us) OVER (PARTITION BY run_id), 0) AS share_pct,
           row_number() OVER (PARTITION BY run_id ORDER BY projected_time_us DESC, workload_key, task_name) AS rank
    FROM projected
)
SELECT run_id, rank, workload_key, tuner, task_name, task_args, time_us, projected_time_us, calls, best_cost_us,
       reused, projected_time_us < time_us AS tuned, share_pct,
       sum(share_pct) OVER running AS cumulative_pct,
       sum(share_pct) OVER running - share_pct AS cumulative_before_pct
FROM ranked
WINDOW running AS (PARTITION BY run_id ORDER BY rank ROWS UNBOUNDED PRECEDING);
