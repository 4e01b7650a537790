-- The debug dump reader, when a file gave no rows: what its document is, and what its
-- list (nodes, traceEvents) is, as JSON types (an empty list is fine, no list is not).
--
-- @param path     the file
-- @param size     the largest JSON object read: the file's size + 1
-- @param literal  true when the file is a JSON string literal holding the JSON
-- @param key      the list's key
-- @returns document, list
SELECT json_type(doc) AS document, json_type(doc -> $key) AS list
FROM (SELECT CASE WHEN $literal THEN (json ->> '$')::JSON ELSE json END AS doc
      FROM read_json_objects($path, format = 'unstructured', maximum_object_size = $size))
