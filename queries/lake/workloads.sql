-- Lake `workloads`: a workload is written by every ingest that first met it; keep one.
-- Placeholder: {files}, a view of the table's files (the Parquet reader's, by name).
SELECT * FROM {files}
QUALIFY row_number() OVER (PARTITION BY workload_key) = 1
