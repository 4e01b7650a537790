-- One row per node of a run, ranked by time, with share and cumulative share of the
-- run's total time and the node's match.
--
-- @column run_id               the run
-- @column rank                 1 = most time
-- @column node_index           the node's position in the run (node_samples.node_index)
-- @column node_name            graph node name
-- @column func_name            kernel symbol
-- @column kernel_family        anchor op family
-- @column time_us              node time per inference, in microseconds
-- @column calls                kernel calls the node stands for
-- @column share_pct            time_us as a percentage of the run's total time
-- @column cumulative_pct       share of this row and all rows ranked before it
-- @column cumulative_before_pct share of the rows ranked before it
-- @column task_name            matched task, if any
-- @column workload_key         matched workload, if any
-- @column method               ladder rule that decided
-- @column confidence           0..1, NULL when nothing was chosen
CREATE OR REPLACE VIEW node_times AS
WITH ranked AS (
    SELECT m.*, 100.0 * m.time_us / nullif(sum(m.time_us) OVER (PARTITION BY m.run_id), 0) AS share_pct,
           row_number() OVER (PARTITION BY m.run_id ORDER BY m.time_us DESC, m.node_index) AS rank
    FROM node_matches AS m
)
SELECT run_id, rank, node_index, node_name, func_name, kernel_family, time_us, calls, share_pct,
       sum(share_pct) OVER running AS cumulative_pct,
       sum(share_pct) OVER running - share_pct AS cumulative_before_pct,
       task_name, workload_key, method, confidence
FROM ranked
WINDOW running AS (PARTITION BY run_id ORDER BY rank ROWS UNBOUNDED PRECEDING);
