-- A debug dump's nodes (the view _node_file, whole rows in node order) as the source's
-- graph nodes: the shapes it lends to runs of the same model. hotdb/store/loader.py:
-- _insert_graph_file.
--
-- @param source_id  the dump's source
INSERT INTO graph_nodes BY NAME
SELECT $source_id AS source_id, node_index, node_name, func_name, input_shapes, input_dtypes, out_shape, out_dtype,
       kernel_hash, layouts, data_shape_logical, weight_shape_logical, args_flat
FROM _node_file
