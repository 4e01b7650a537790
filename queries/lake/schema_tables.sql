-- The tables of the schema (a fresh database's), each column in order: what the lake
-- holds, and which column ties a table's rows to an ingest (hotdb/store/lake.py: tables).
--
-- @returns table_name, column_name
SELECT table_name, column_name
FROM duckdb_columns()
WHERE NOT internal AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE NOT internal)
ORDER BY table_name, column_index
