-- Lake `kernel_match_results`: an ingest of IR or tasks re-matches its model's older runs
-- into new files; keep each run's newest match of a kernel.
-- Placeholder: {files}, the table's files as a SQL list of strings.
SELECT * FROM read_parquet({files}, union_by_name = true, hive_partitioning = false)
QUALIFY row_number() OVER (PARTITION BY run_id, func_name ORDER BY computed_at DESC) = 1
