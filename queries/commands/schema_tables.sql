-- Each table of the database with its comment (for docs/schema.md).
--
-- @returns table_name, comment
SELECT table_name, comment FROM duckdb_tables() ORDER BY table_name
