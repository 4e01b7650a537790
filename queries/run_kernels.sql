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
per_signature AS (
    -- the calls summed per signature before the signatures' wide columns join them: a large
    -- profile's million calls share a few hundred signatures (bench/ingest.py)
    SELECT run_id, signature_id, count(*) AS node_count, sum(calls) AS calls, sum(time_us) AS time_us,
           min(node_index) AS first_node_index
    FROM node_calls
    GROUP BY run_id, signature_id
),
shaped AS (
    SELECT s.run_id, s.func_name, s.kernel_family, s.func_base, s.func_number, s.out_shape_logical, s.out_dtype,
           s.is_kernel, p.node_count, p.calls, p.time_us, p.first_node_index,
           coalesce(s.data_shape_logical, g.data_shape_logical) AS data_logical,
           coalesce(s.weight_shape_logical, g.weight_shape_logical) AS weight_logical,
           coalesce(s.args_flat, g.args_flat) AS args,
           coalesce(s.kernel_hash, g.kernel_hash) AS hash
    FROM per_signature AS p
    JOIN node_signatures AS s USING (run_id, signature_id)
    LEFT JOIN graph AS g ON g.run_id = s.run_id AND g.node_name = s.node_name AND g.func_name = s.func_name
    WHERE s.output_index = 0
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
    sum(node_count)::BIGINT AS node_count,
    sum(calls) AS calls,
    sum(time_us) AS time_us,
    sum(time_us) / sum(calls) AS time_per_call_us,
    min(first_node_index) AS first_node_index,
    any_value(out_shape_logical) AS out_shape_logical,
    any_value(out_dtype) AS out_dtype,
    any_value(data_logical) AS data_shape_logical,
    any_value(weight_logical) AS weight_shape_logical,
    any_value(args) AS args_flat,
    any_value(hash) AS kernel_hash,
    bool_and(is_kernel) AS is_kernel
FROM shaped
GROUP BY run_id, func_name;
