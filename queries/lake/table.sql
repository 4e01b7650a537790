-- A lake table read in place: every row of its Parquet files, one file per landed
-- ingest folder that holds the table (hotdb/store/lake.py). Tables several files may
-- hold the same row of have a file of their own here, keeping one row per key.
-- Reads `files`: the table's files, as the Parquet reader gives them (by name).
--
-- @returns *
SELECT * FROM files
