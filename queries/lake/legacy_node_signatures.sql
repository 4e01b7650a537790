-- Lake `node_signatures` from the `nodes.parquet` files of lakes written before schema 6,
-- which kept nodes whole: each node is its own signature (signature_id = node_index).
-- Reads `files`: those files, as the Parquet reader gives them (by name).
--
-- @returns *
SELECT run_id, node_index::INTEGER AS signature_id, node_name, output_index, func_name, out_shape, out_dtype,
       input_shapes, input_dtypes, num_inputs, num_outputs, kernel_family, func_base, func_number, out_shape_logical,
       workload_key, data_shape_logical, weight_shape_logical, args_flat, kernel_hash, layouts,
       coalesce(is_kernel, true) AS is_kernel
FROM files
