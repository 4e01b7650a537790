-- The rows of a table an ingest wrote, for a table whose rows are tied to it by source_id, as a
-- Parquet file of the ingest's folder; returns the rows written (a file of none is removed).
--
-- @param table  a table of the schema with that column (lake.py: tables)
-- @param ingest  the ingest
-- @param path  the file
COPY (SELECT * FROM query_table($table) WHERE source_id IN (SELECT source_id FROM sources WHERE ingest_id = $ingest))
TO $path (FORMAT parquet)
