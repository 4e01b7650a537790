-- The claims of one model in a version of the commit log (the lake's own, model 0:
-- schema versions, retention, leases; lake_claims.py reads them).
--
-- @param _lake_log_files  (a variable) the Parquet files of the log at its version
-- @param model            the model id
-- @returns claim
SELECT claim FROM read_parquet(getvariable('_lake_log_files')) WHERE model_id = $model
