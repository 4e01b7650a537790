-- A debug table too large to hold whose name came again after other nodes
-- (table_nodes_check.sql): each node's output index counted again, as when the nodes are
-- held (its name's rows before it), into a new Parquet file of the same rows.
--
-- @param path  the reader's Parquet file
-- @param out   the file of the recounted rows
COPY (SELECT f.* REPLACE (r.output_index AS output_index)
      FROM read_parquet($path) AS f
      JOIN (SELECT node_index, (row_number() OVER (PARTITION BY node_name ORDER BY node_index) - 1)::INTEGER AS output_index
            FROM read_parquet($path)) AS r USING (node_index)
      ORDER BY node_index)
TO $out (FORMAT parquet)
