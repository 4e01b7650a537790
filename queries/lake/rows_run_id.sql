-- The rows of a table some ingests wrote, for a table whose rows are tied to an ingest by
-- run_id: what a commit appends to the lake's table.
--
-- @param table  a table of the schema with that column (lake.py: tables)
-- @param ingests  the ingests (a list)
-- @returns *
SELECT * FROM query_table($table) WHERE run_id IN (SELECT run_id FROM runs WHERE ingest_id IN (SELECT unnest($ingests)))
