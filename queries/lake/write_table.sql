-- One table of the context, whole, as a Parquet file (a compaction, a re-match); returns
-- the rows written (a file of none is removed).
--
-- @param table  a table of the schema (lake.py: tables)
-- @param path  the file
COPY (FROM query_table($table)) TO $path (FORMAT parquet)
