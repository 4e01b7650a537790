-- A debug table too large to hold (hotdb/ingest/profile/debug_table.py), as its reader wrote it
-- (whole node rows, in order): how many names have two first outputs (a name that came
-- again after other nodes: its output indexes are counted again, table_nodes_recount.sql),
-- and the sum of the first outputs' times (a node with several outputs is printed once
-- per output, its time repeated).
--
-- @param path  the Parquet file
-- @returns again, total_us
SELECT (SELECT count(*) FROM (SELECT node_name FROM read_parquet($path) WHERE output_index = 0
                              GROUP BY node_name HAVING count(*) > 1)) AS again,
       coalesce(sum(time_us) FILTER (WHERE output_index = 0), 0.0) AS total_us
FROM read_parquet($path)
