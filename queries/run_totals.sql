-- One row per run with nodes: its total time and how much of it hotdb could attribute.
-- (Aggregated before joining runs, so that a filter on run_id reaches the node scan.)
--
-- @column run_id              the run
-- @column model_id            model of the run
-- @column label               run label
-- @column total_time_us       sum of all node times per inference (tunable or not), in microseconds
-- @column nodes               nodes (kernel calls) in the run
-- @column kernels             distinct kernels
-- @column matched_pct         share of time in nodes matched to a workload
-- @column ambiguous_pct       share of time in nodes with several candidates and no choice
-- @column unmatched_tunable_pct share of time in tunable nodes without any candidate
-- @column not_tunable_pct     share of time in nodes no tuner can tune (layout_transform, pooling, ...)
-- @column with_task_pct       share of time in nodes matched to a task of the model
-- @column tunable_time_us     time of the kernels a tuner can act on (node_matches.time_class 'tunable'):
--                             what coverage is taken against by default
-- @column tunable_pct         tunable_time_us as a share of total_time_us
-- @column untunable_pct       share of time in kernels no tuner tunes (time_class 'untunable')
-- @column overhead_pct        share of time that is not in kernels (time_class 'overhead': the runtime's
--                             own time, VM builtins, a report's unlisted rest)
CREATE OR REPLACE VIEW run_totals AS
WITH per_run AS (
    SELECT m.run_id,
           coalesce(sum(m.time_us), 0) AS total_time_us,
           count(m.node_index) AS nodes,
           count(DISTINCT m.func_name) AS kernels,
           100.0 * coalesce(sum(m.time_us) FILTER (m.workload_key IS NOT NULL), 0) / nullif(sum(m.time_us), 0) AS matched_pct,
           100.0 * coalesce(sum(m.time_us) FILTER (m.method = 'ambiguous'), 0) / nullif(sum(m.time_us), 0) AS ambiguous_pct,
           100.0 * coalesce(sum(m.time_us) FILTER (m.method = 'unmatched' AND m.reason NOT LIKE 'not tunable%'), 0) / nullif(sum(m.time_us), 0) AS unmatched_tunable_pct,
           100.0 * coalesce(sum(m.time_us) FILTER (m.reason LIKE 'not tunable%'), 0) / nullif(sum(m.time_us), 0) AS not_tunable_pct,
           100.0 * coalesce(sum(m.time_us) FILTER (m.task_name IS NOT NULL), 0) / nullif(sum(m.time_us), 0) AS with_task_pct,
           coalesce(sum(m.time_us) FILTER (m.time_class = 'tunable'), 0) AS tunable_time_us,
           100.0 * coalesce(sum(m.time_us) FILTER (m.time_class = 'untunable'), 0) / nullif(sum(m.time_us), 0) AS untunable_pct,
           100.0 * coalesce(sum(m.time_us) FILTER (m.time_class = 'overhead'), 0) / nullif(sum(m.time_us), 0) AS overhead_pct
    FROM node_matches AS m
    GROUP BY m.run_id
)
SELECT r.run_id, r.model_id, r.label, p.total_time_us, p.nodes, p.kernels, p.matched_pct, p.ambiguous_pct,
       p.unmatched_tunable_pct, p.not_tunable_pct, p.with_task_pct, p.tunable_time_us,
       100.0 * p.tunable_time_us / nullif(p.total_time_us, 0) AS tunable_pct, p.untunable_pct, p.overhead_pct
FROM per_run AS p
JOIN runs AS r USING (run_id);
