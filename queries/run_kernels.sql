-- One row per kernel of a run: a distinct kernel symbol with all the nodes that call
-- it. Kernels, not nodes, are what the matcher assigns to workloads: every node of a
-- kernel computes the same thing.
--
-- @column run_id            run the kernel ran in
-- @column func_name         kernel symbol (debug table "Ops")
-- @column kernel_family     anchor op family read from func_name
-- @column kernel_variant    implementation the symbol shows (NCHWc, winograd, pack), else NULL
-- @column func_base         func_name without prefixes and numbering suffix
-- @column func_number       numbering suffix of func_name (0 when it has none)
-- @column node_count        nodes (call sites) that call this kernel
-- @column calls             kernel calls per inference
-- @column time_us           time of all calls per inference, in microseconds
-- @column time_per_call_us  time_us / calls
-- @column first_node_index  smallest node_index among its nodes
-- @column out_shape_logical unpacked output shape of the kernel
-- @column out_dtype         output dtype when the profile gives it
-- @column input_workload_key workload known from the node's input shapes (ladder rule 2), else NULL
CREATE OR REPLACE VIEW run_kernels AS
SELECT
    n.run_id,
    n.func_name,
    any_value(n.kernel_family) AS kernel_family,
    CASE
        WHEN n.func_name ILIKE '%winograd%' THEN 'winograd'
        WHEN n.func_name LIKE '%NCHWc%' THEN 'NCHWc'
        WHEN n.func_name LIKE '%dense_pack%' THEN 'pack'
    END AS kernel_variant,
    any_value(n.func_base) AS func_base,
    any_value(n.func_number) AS func_number,
    count(*) AS node_count,
    sum(n.calls) AS calls,
    sum(n.time_us) AS time_us,
    sum(n.time_us) / sum(n.calls) AS time_per_call_us,
    min(n.node_index) AS first_node_index,
    any_value(n.out_shape_logical) AS out_shape_logical,
    any_value(n.out_dtype) AS out_dtype,
    any_value(n.workload_key) AS input_workload_key
FROM nodes AS n
WHERE n.output_index = 0
GROUP BY n.run_id, n.func_name;
