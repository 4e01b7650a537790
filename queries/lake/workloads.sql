-- Lake `workloads`: a workload is written by every ingest that first met it; keep one.
-- Reads `files`: the table's files, as the Parquet reader gives them (by name).
--
-- @returns *
SELECT * FROM files
QUALIFY row_number() OVER (PARTITION BY workload_key) = 1
