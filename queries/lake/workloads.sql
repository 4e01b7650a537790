-- Lake `workloads`: a workload is written by every ingest that first met it; keep one.
-- Placeholder: {files}, the table's files as a SQL list of strings.
SELECT * FROM read_parquet({files}, union_by_name = true, hive_partitioning = false)
QUALIFY row_number() OVER (PARTITION BY workload_key) = 1
