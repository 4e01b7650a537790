-- Lake `kernel_match_results`: an ingest of IR or tasks re-matches its model's older runs
-- into new files; keep each run's newest match of a kernel.
-- Reads `files`: the table's files, as the Parquet reader gives them (by name).
--
-- @returns *
SELECT * FROM files
QUALIFY row_number() OVER (PARTITION BY run_id, func_name ORDER BY computed_at DESC) = 1
