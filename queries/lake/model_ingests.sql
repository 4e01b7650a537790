-- A model's ingests; with $after, only those with a greater id (those an import made
-- in the lake's fresh range).
--
-- @param model_id  the model
-- @param after  ids above this (NULL: every ingest)
-- @returns ingest_id
SELECT ingest_id FROM ingests
WHERE model_id = $model_id AND ($after IS NULL OR ingest_id > $after)
ORDER BY ingest_id
