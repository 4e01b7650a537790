-- A debug dump's nodes (the view _node_file: whole rows the dump reader wrote, hotdb/ingest/
-- dump_read.py) as node_signatures_of.sql reads parsed nodes: each node's signature
-- columns (schema/0005) and `seq`, its place in the run. hotdb/store/loader.py:
-- _insert_node_file.
CREATE OR REPLACE TEMP VIEW _node_signature_columns AS
SELECT node_name, output_index, func_name, out_shape, out_dtype, input_shapes, input_dtypes, num_inputs, num_outputs,
       kernel_family, func_base, func_number, out_shape_logical, workload_key, data_shape_logical,
       weight_shape_logical, args_flat, kernel_hash, layouts, is_kernel, node_index::BIGINT AS seq
FROM _node_file
