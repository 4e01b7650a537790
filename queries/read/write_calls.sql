-- The large-file report reader's result: the calls' per-call columns in file order, to a
-- Parquet file the loader reads (hotdb/store/loader.py). Placeholder: {line}, how a call's
-- line is computed (NULL where calls have none). No ORDER BY: the table is in file order
-- and DuckDB keeps insertion order (preserve_insertion_order); a sort doubled the write.
--
-- @param path  the Parquet file
COPY (SELECT rowid::INTEGER AS node_index, signature, time_us,
             greatest(trunc(calls_real), 1)::INTEGER AS calls, device, {line} AS line_no
      FROM calls)
TO $path (FORMAT parquet)
