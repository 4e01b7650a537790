-- One row per kernel of a run: a distinct kernel symbol with all the nodes that call
-- it. Kernels, not nodes, are what the matcher assigns to workloads: every node of a
-- kernel computes the same thing. Input shapes come from the profile itself or, for a
-- printed table, from a graph JSON of the same model (joined by node name).
--
-- @column run_id               run the kernel ran in
-- @column func_name            kernel symbol (debug table "Ops", report "Name")
-- @column kernel_family        anchor op family read from func_name
-- @column kernel_variant       implementation the symbol shows (NCHWc, winograd, pack), else NULL
-- @column func_base            func_name without prefixes and numbering suffix
-- @column func_number          numbering suffix of func_name (0 when it has none)
-- @column node_count           nodes (call sites) that call this kernel
-- @column calls                kernel calls per inference
-- @column time_us              time of all calls per inference, in microseconds
-- @column time_per_call_us     time_us / calls
-- @column first_node_index     smallest node_index among its nodes
-- @column out_shape_logical    unpacked output shape of the kernel
-- @column out_dtype            output dtype when the profile gives it
-- @column data_shape_logical   logical data shape (NCHW / (M, K)) from input shapes, when known
-- @column weight_shape_logical logical weight shape (OIHW / (N, K)) from input shapes, when known
-- @column args_flat            all argument dims (inputs then output), comma-joined, when known
-- @column kernel_hash          structural hash the profile reports (Hash column), if any
-- @column is_kernel            false for VM builtins (alloc, reshape, checks)
CREATE OR REPLACE VIEW run_kernels AS
WITH graph AS (
    -- graph JSON of the run's model: the one ingested with the run, else the latest
    SELECT r.run_id, g.*
    FROM runs AS r
    JOIN sources AS s ON s.model_id = r.model_id AND s.role = 'graph'
    JOIN graph_nodes AS g ON g.source_id = s.source_id
    QUALIFY dense_rank() OVER (PARTITION BY r.run_id
                               ORDER BY (s.ingest_id = r.ingest_id) DESC, s.source_id DESC) = 1
),
shaped AS (
    SELECT n.*,
           coalesce(n.data_shape_logical, g.data_shape_logical) AS data_logical,
           coalesce(n.weight_shape_logical, g.weight_shape_logical) AS weight_logical,
           coalesce(n.args_flat, g.args_flat) AS args,
           coalesce(n.kernel_hash, g.kernel_hash) AS hash
    FROM nodes AS n
    LEFT JOIN graph AS g ON g.run_id = n.run_id AND g.node_name = n.node_name AND g.func_name = n.func_name
    WHERE n.output_index = 0
)
SELECT
    run_id,
    func_name,
    any_value(kernel_family) AS kernel_family,
    CASE
        WHEN func_name ILIKE '%winograd%' THEN 'winograd'
        WHEN func_name LIKE '%NCHWc%' THEN 'NCHWc'
        WHEN func_name LIKE '%dense_pack%' THEN 'pack'
    END AS kernel_variant,
    any_value(func_base) AS func_base,
    any_value(func_number) AS func_number,
    count(*) AS node_count,
    sum(calls) AS calls,
    sum(time_us) AS time_us,
    sum(time_us) / sum(calls) AS time_per_call_us,
    min(node_index) AS first_node_index,
    any_value(out_shape_logical) AS out_shape_logical,
    any_value(out_dtype) AS out_dtype,
    any_value(data_logical) AS data_shape_logical,
    any_value(weight_logical) AS weight_shape_logical,
    any_value(args) AS args_flat,
    any_value(hash) AS kernel_hash,
    bool_and(is_kernel) AS is_kernel
FROM shaped
GROUP BY run_id, func_name;
