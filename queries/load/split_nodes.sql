-- Store staged node rows (temp table staged_nodes: the columns of `nodes`, a run's rows
-- or several runs') as node_signatures and node_calls (schema/0005). Rows with equal
-- signature columns share one signature, numbered per run by its first node; grouping
-- keeps each group's members, so no join on twenty nullable columns is needed.
CREATE TEMP TABLE staged_signatures AS
SELECT (row_number() OVER (PARTITION BY run_id ORDER BY first_node_index, first_row) - 1)::INTEGER AS signature_id, *
FROM (
    SELECT run_id, node_name, output_index, func_name, out_shape, out_dtype, input_shapes, input_dtypes, num_inputs,
           num_outputs, kernel_family, func_base, func_number, out_shape_logical, workload_key, data_shape_logical,
           weight_shape_logical, args_flat, kernel_hash, layouts, coalesce(is_kernel, true) AS is_kernel,
           min(node_index) AS first_node_index, min(rowid) AS first_row, list(rowid) AS members
    FROM staged_nodes
    GROUP BY ALL
);

INSERT INTO node_signatures BY NAME
SELECT * EXCLUDE (first_node_index, first_row, members) FROM staged_signatures;

INSERT INTO node_calls BY NAME
SELECT n.run_id, n.node_index, s.signature_id, n.time_us, n.calls, n.reported_share_pct, n.start_us, n.device, n.line_no
FROM staged_nodes AS n
JOIN (SELECT signature_id, unnest(members) AS member FROM staged_signatures) AS s ON n.rowid = s.member;

DROP TABLE staged_signatures;

DROP TABLE staged_nodes;
