-- The commits a version of the commit log holds, with their models: the log's files at
-- that version, read by DuckDB (a local lake; an object store's go through Arrow).
--
-- @param files  the Parquet files of the log at its version
-- @returns commit_id, model_id
SELECT DISTINCT commit_id, model_id FROM read_parquet($files)
