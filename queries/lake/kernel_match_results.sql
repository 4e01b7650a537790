-- Lake `kernel_match_results`: an ingest of IR or tasks re-matches its model's older runs
-- in its own commit; keep each run's newest match of a kernel.
-- Reads `files`: the rows of the commits a reader saw (or a folder-layout lake's files), by name.
--
-- @returns *
SELECT * FROM files
QUALIFY row_number() OVER (PARTITION BY run_id, func_name ORDER BY computed_at DESC) = 1
