-- A debug table too large to hold (hotdb/ingest/debug_table.py): its nodes, read back in
-- order from the reader's spill file (the registered stream table_nodes, node_schema()),
-- each name's output index counted again (its rows before it: the reader held names
-- only while it held the nodes), to a Parquet file the loader reads as a NodeFile. Every
-- node is a signature of its own (its name and output index are): `signature_id` is its
-- index, `first` true.
--
-- @param path  the Parquet file
COPY (SELECT * REPLACE ((row_number() OVER (PARTITION BY node_name ORDER BY node_index) - 1)::INTEGER AS output_index),
             node_index AS signature_id, true AS first
      FROM table_nodes
      ORDER BY node_index)
TO $path (FORMAT parquet)
