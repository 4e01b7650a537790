-- Each column of each table with its type and comment (for docs/schema.md).
--
-- @returns table_name, column_name, data_type, comment
SELECT table_name, column_name, data_type, comment
FROM duckdb_columns()
WHERE NOT internal
ORDER BY table_name, column_index
