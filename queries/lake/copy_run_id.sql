-- A database file's rows of some ingests (`hotdb lake import`), for a table whose rows are
-- tied to an ingest by run_id, their ids moved into the lake's: every id column (ingest,
-- source, run, baseline run) shifted by $offset (such tables hold no model id).
--
-- @param table  a table of the schema with that column (lake.py: tables)
-- @param ingests  the ingests (a list)
-- @param offset  the start of the fresh id range
-- @returns *
SELECT COLUMNS(lambda c: c IN ('ingest_id', 'source_id', 'run_id', 'baseline_run_id')) + $offset,
       COLUMNS(lambda c: c NOT IN ('ingest_id', 'source_id', 'run_id', 'baseline_run_id', 'model_id'))
FROM query_table($table)
WHERE run_id IN (SELECT run_id FROM runs WHERE ingest_id IN (SELECT unnest($ingests)))
