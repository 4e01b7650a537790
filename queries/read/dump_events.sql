-- The debug dump reader: the execution trace's events, one row each, in file order (an
-- event's rowid is its index in "traceEvents"); a time is kept as its text, to be checked.
--
-- @param path  the execution trace file
-- @param size  the largest JSON object read: the file's size + 1
CREATE TEMP TABLE dump_events AS
WITH doc AS MATERIALIZED (
    SELECT from_json(json, '{"traceEvents": [{"name": "VARCHAR", "ph": "VARCHAR", "ts": "VARCHAR"}]}').traceEvents
           AS events
    FROM read_json_objects($path, format = 'unstructured', maximum_object_size = $size)
)
SELECT unnest(events, recursive := true) FROM doc
