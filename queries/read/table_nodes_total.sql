-- The sum of a large debug table's node times (table_nodes_write.sql's file), each node
-- counted once: a node with several outputs is printed once per output, its time repeated.
--
-- @param path  the Parquet file
-- @returns total_us
SELECT coalesce(sum(time_us) FILTER (WHERE output_index = 0), 0.0) AS total_us FROM read_parquet($path)
