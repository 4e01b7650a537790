-- Lake `models`: every writer of a model writes its row; keep the first written.
-- Placeholder: {files}, the table's files as a SQL list of strings.
SELECT * FROM read_parquet({files}, union_by_name = true, hive_partitioning = false)
QUALIFY row_number() OVER (PARTITION BY model_id ORDER BY created_at) = 1
