-- One table of an in-memory database, whole: what a commit appends to the lake's table
-- (a shared table such as workloads, or every row when `lake convert` moves a model).
--
-- @param table  a table of the schema (lake.py: tables)
-- @returns *
SELECT * FROM query_table($table)
