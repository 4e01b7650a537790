-- A database file's rows of a table shared by every ingest (workloads, by key), for
-- `hotdb lake import`: all of them (insert_workloads.sql keeps those the lake lacks).
--
-- @param table  a table of the schema with no ingest, run, source or model column
-- @returns *
SELECT * FROM query_table($table)
