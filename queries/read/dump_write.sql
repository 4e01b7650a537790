-- The debug dump reader's result: every kernel run as a whole node row (rows.py:
-- node_schema()), in execution order, to a Parquet file the loader reads: the run's own
-- columns, and those of its signature (the registered table dump_signature_rows, one row
-- per signature, made by Python).
--
-- @param path  the Parquet file
COPY (SELECT s.* EXCLUDE (signature, node_index, node_name, time_us, start_us),
             c.node_index::INTEGER AS node_index, c.name AS node_name, c.time_us, c.start_us
      FROM dump_calls AS c JOIN dump_signature_rows AS s USING (signature)
      WHERE c.kernel
      ORDER BY c.node_index)
TO $path (FORMAT parquet)
