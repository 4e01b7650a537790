-- The claims of one model in a version of the commit log (the lake's own, model 0:
-- schema versions, retention, leases; lake_claims.py reads them).
--
-- @param files  the Parquet files of the log at its version
-- @param model_id  the model id (0: the lake's own)
-- @returns claim
SELECT claim FROM read_parquet($files) WHERE model_id = $model_id
