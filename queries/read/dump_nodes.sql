-- The debug dump reader (hotdb/ingest/profile/debug_dump_duckdb.py): the graph dump's nodes, one row each,
-- in file order (a node's rowid is its index in "nodes"). read_json with the columns given
-- parses the document into them directly: from_json over read_json_objects held the
-- parsed document and its struct at once (a 57 MiB dump: 758 MiB, 507 MiB so, on one
-- thread). Fields are kept as JSON text where Python reads them once per kernel signature.
-- A graph written as a JSON string literal (TVM <= 0.6) is read by dump_nodes_literal.sql.
--
-- @param path  the graph dump file
-- @param size  the largest JSON object read: the file's size + 1
CREATE TEMP TABLE dump_nodes AS
SELECT unnest(nodes, recursive := true)
FROM read_json($path, format = 'unstructured', maximum_object_size = $size,
               columns = {nodes: 'STRUCT(op VARCHAR, name VARCHAR, inputs JSON[], shape JSON, attrs JSON)[]'})
