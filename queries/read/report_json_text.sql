-- The large-file Report JSON reader (hotdb/ingest/bulk.py): the report's text, whole, as
-- DuckDB's JSON (not yet parsed into columns). Placeholder: {size}, the file's size + 1,
-- the largest object DuckDB then reads.
--
-- @param path  the report
CREATE TEMP TABLE report AS
SELECT json FROM read_json_objects($path, maximum_object_size = {size})
