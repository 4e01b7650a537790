-- Store a debug dump's signatures (the view _node_file: whole rows the dump reader wrote
-- in node order, each with its signature_id and whether it is the signature's first,
-- hotdb/ingest/profile/debug_dump_duckdb.py) as node_signatures rows. hotdb/store/loader.py:
-- _insert_node_file.
--
-- @param run_id  the run
INSERT INTO node_signatures BY NAME
SELECT $run_id AS run_id, signature_id, node_name, output_index, func_name, out_shape, out_dtype, input_shapes,
       input_dtypes, num_inputs, num_outputs, kernel_family, func_base, func_number, out_shape_logical, workload_key,
       data_shape_logical, weight_shape_logical, args_flat, kernel_hash, layouts, is_kernel
FROM _node_file
WHERE first
