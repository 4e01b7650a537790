-- What one INSERT of a stream of rows changes, to be set back after it (loader._streaming):
-- DuckDB's threads, and the memory its buffer pool holds now (bytes: a limit below it
-- would make DuckDB evict, and one it cannot meet aborts the transaction).
--
-- @returns threads, pool_bytes
SELECT current_setting('threads') AS threads,
       (SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()) AS pool_bytes
