-- The debug dump reader's result: every kernel run as a whole node row (hotdb/rows/lists.py:
-- node_schema()), in execution order, to a Parquet file the loader reads: the run's own
-- columns, and those of its signature (the registered table dump_signature_rows, one row
-- per signature, made by Python). A run's stored signature is its kernel's and its node's
-- name: `signature_id` numbers them in order of first run, `first` marks that run.
--
-- @param path  the Parquet file
COPY (SELECT s.* EXCLUDE (signature, node_index, node_name, time_us, start_us),
             c.node_index::INTEGER AS node_index, c.name AS node_name, c.time_us, c.start_us,
             (dense_rank() OVER (ORDER BY c.first_index) - 1)::INTEGER AS signature_id,
             c.node_index = c.first_index AS first
      FROM (SELECT *, min(node_index) OVER (PARTITION BY signature, name) AS first_index FROM dump_calls WHERE kernel) AS c
      JOIN dump_signature_rows AS s USING (signature)
      ORDER BY c.node_index)
TO $path (FORMAT parquet)
