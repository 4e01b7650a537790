-- A lake table read in place: every row of its Parquet files, one file per landed
-- ingest folder that holds the table (hotdb/store/lake.py). Tables several files may
-- hold the same row of have a file of their own here, keeping one row per key.
-- Placeholder: {files}, the table's files as a SQL list of strings.
SELECT * FROM read_parquet({files}, union_by_name = true, hive_partitioning = false)
