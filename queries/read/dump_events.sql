-- The debug dump reader: the execution trace's events, one row each, in file order (an
-- event's rowid is its index in "traceEvents"); a time is kept as its text, to be checked.
-- read_json with the columns given, as dump_nodes.sql.
--
-- @param path  the execution trace file
-- @param size  the largest JSON object read: the file's size + 1
CREATE TEMP TABLE dump_events AS
SELECT unnest(traceEvents, recursive := true)
FROM read_json($path, format = 'unstructured', maximum_object_size = $size,
               columns = {traceEvents: 'STRUCT(name VARCHAR, ph VARCHAR, ts VARCHAR)[]'})
