-- One row per (run, op family): time by anchor operator (conv2d, dense, layout_transform,
-- max_pool2d, ...), ranked, with share and cumulative share of the run's total time.
--
-- @column run_id               the run
-- @column rank                 1 = most time
-- @column kernel_family        anchor op family
-- @column tunable              whether the run's tuner can tune kernels of this family (a
--                              node_matches.time_class of 'tunable'; a Relax build's every
--                              PrimFunc but reshapes, an AutoTVM build's family_compat families)
-- @column time_us              time per inference, in microseconds
-- @column calls                kernel calls per inference
-- @column kernels              distinct kernels of the family
-- @column share_pct            time_us as a percentage of the run's total time
-- @column cumulative_pct       share of this row and all rows ranked before it
-- @column cumulative_before_pct share of the rows ranked before it
-- @column matched_pct          share of the family's time matched to a workload
CREATE OR REPLACE VIEW op_times AS
WITH per_op AS (
    SELECT m.run_id, m.kernel_family,
           bool_or(m.time_class = 'tunable') AS tunable,
           sum(m.time_us) AS time_us, sum(m.calls) AS calls, count(DISTINCT m.func_name) AS kernels,
           100.0 * coalesce(sum(m.time_us) FILTER (m.workload_key IS NOT NULL), 0) / nullif(sum(m.time_us), 0) AS matched_pct
    FROM node_matches AS m
    GROUP BY m.run_id, m.kernel_family
),
ranked AS (
    SELECT p.*, 100.0 * p.time_us / nullif(sum(p.time_us) OVER (PARTITION BY p.run_id), 0) AS share_pct,
           row_number() OVER (PARTITION BY p.run_id ORDER BY p.time_us DESC, p.kernel_family) AS rank
    FROM per_op AS p
)
SELECT run_id, rank, kernel_family, tunable, time_us, calls, kernels, share_pct,
       sum(share_pct) OVER running AS cumulative_pct,
       sum(share_pct) OVER running - share_pct AS cumulative_before_pct,
       matched_pct
FROM ranked
WINDOW running AS (PARTITION BY run_id ORDER BY rank ROWS UNBOUNDED PRECEDING);
