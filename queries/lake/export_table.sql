-- One table of a lake's reader, whole, as a plain Parquet file (`hotdb lake export
-- --parquet`); returns the rows written.
--
-- @param table  a table of the schema (lake.py: tables)
-- @param path  the file
COPY (FROM query_table($table)) TO $path (FORMAT parquet)
