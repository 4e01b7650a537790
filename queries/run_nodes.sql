-- One row per executed kernel call (or aggregated calls) of a run: the node with its
-- time, its share of the run's total time and whether it came with repeated samples.
-- Multi-output nodes print one row per output in the debug table; only output 0 is a
-- call, so later outputs are left out here and never double-count time.
--
-- @column run_id            run the node belongs to
-- @column node_index        position in the profile (execution order where the profile gives it)
-- @column node_name         graph node name as printed
-- @column func_name         kernel symbol the node calls
-- @column kernel_family     anchor op family read from func_name (conv2d, dense, max_pool2d, ...)
-- @column time_us           time of this node per inference, in microseconds
-- @column calls             kernel calls this row stands for (1 unless the profile aggregated)
-- @column share_pct         time_us as a percentage of the run's total time
-- @column out_shape         output shape as printed (packed layouts stay packed)
-- @column out_shape_logical output shape with packed layouts unpacked (NCHW16c -> NCHW)
-- @column sample_count      number of repeated measurements stored for this node
-- @column is_kernel         false for what is not a kernel: VM builtins, the runtime's overhead, a report's unlisted rest
CREATE OR REPLACE VIEW run_nodes AS
SELECT
    n.run_id,
    n.node_index,
    n.node_name,
    n.func_name,
    n.kernel_family,
    n.time_us,
    n.calls,
    100.0 * n.time_us / nullif(sum(n.time_us) OVER (PARTITION BY n.run_id), 0) AS share_pct,
    n.out_shape,
    n.out_shape_logical,
    coalesce(s.sample_count, 0) AS sample_count,
    n.is_kernel
FROM nodes AS n
LEFT JOIN (
    SELECT run_id, node_index, count(*) AS sample_count FROM node_samples GROUP BY ALL
) AS s USING (run_id, node_index)
WHERE n.output_index = 0;
