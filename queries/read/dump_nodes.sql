-- The debug dump reader (hotdb/ingest/dump_read.py): the graph dump's nodes, one row each,
-- in file order (a node's rowid is its index in "nodes"). The document is parsed once
-- (MATERIALIZED: an unnest of a function of it would parse it again per chunk of rows);
-- TVM <= 0.6 wrote the graph as a JSON string literal holding the JSON. Fields are kept
-- as JSON text where Python reads them once per kernel signature.
--
-- @param path     the graph dump file
-- @param size     the largest JSON object read: the file's size + 1
-- @param literal  true when the file is a JSON string literal
CREATE TEMP TABLE dump_nodes AS
WITH doc AS MATERIALIZED (
    SELECT from_json(CASE WHEN $literal THEN json ->> '$' ELSE json END,
                     '{"nodes": [{"op": "VARCHAR", "name": "VARCHAR", "inputs": ["JSON"], "shape": "JSON",
                                  "attrs": "JSON"}]}').nodes AS nodes
    FROM read_json_objects($path, format = 'unstructured', maximum_object_size = $size)
)
SELECT unnest(nodes, recursive := true) FROM doc
