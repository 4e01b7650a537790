-- The rows of a table some ingests wrote, for a table whose rows are tied to an ingest by
-- ingest_id: what a commit appends to the lake's table.
--
-- @param table  a table of the schema with that column (lake.py: tables)
-- @param ingests  the ingests (a list)
-- @returns *
SELECT * FROM query_table($table) WHERE ingest_id IN (SELECT unnest($ingests))
