-- No row, only the columns of one table with their types: the Arrow schema rows are
-- built in before the loader inserts them.
--
-- @param table  a table of the schema, named by the loader
-- @returns *
SELECT * FROM query_table($table) LIMIT 0
