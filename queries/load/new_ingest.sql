-- One ingest: the files stored together, in one transaction.
--
-- @param model_id  the model the files are of
-- @param now  the ingest's time
-- @param hotdb_version  the hotdb that stored them
-- @returns ingest_id
INSERT INTO ingests (ingest_id, model_id, started_at, hotdb_version)
VALUES (nextval('ingest_id_seq'), $model_id, $now, $hotdb_version)
RETURNING ingest_id
