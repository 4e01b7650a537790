-- Lake `workloads`: a workload is written by every ingest that first met it; keep one.
-- Reads `files`: the rows of the commits a reader saw (or a folder-layout lake's files), by name.
--
-- @returns *
SELECT * FROM files
QUALIFY row_number() OVER (PARTITION BY workload_key) = 1
