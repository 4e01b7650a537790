-- The debug dump reader (hotdb/ingest/profile/debug_dump_duckdb.py): the graph dump's nodes, one row each,
-- in file order, of a graph TVM <= 0.6 wrote as a JSON string literal holding the JSON
-- (dump_nodes.sql reads the others). The document is parsed once
-- (MATERIALIZED: an unnest of a function of it would parse it again per chunk of rows).
--
-- @param path  the graph dump file
-- @param size  the largest JSON object read: the file's size + 1
CREATE TEMP TABLE dump_nodes AS
WITH doc AS MATERIALIZED (
    SELECT from_json(json ->> '$',
                     '{"nodes": [{"op": "VARCHAR", "name": "VARCHAR", "inputs": ["JSON"], "shape": "JSON",
                                  "attrs": "JSON"}]}').nodes AS nodes
    FROM read_json_objects($path, format = 'unstructured', maximum_object_size = $size)
)
SELECT unnest(nodes, recursive := true) FROM doc
