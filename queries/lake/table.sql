-- A lake table read in place: every row of its Parquet files, one file per landed
-- ingest folder that holds the table (hotdb/store/lake.py). Tables several files may
-- hold the same row of have a file of their own here, keeping one row per key.
-- Placeholder: {files}, a view of the table's files (the Parquet reader's, by name).
SELECT * FROM {files}
