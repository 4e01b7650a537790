-- An ingest's context holds its model's row: from the lake's files, else a new one with
-- the id every writer draws for the name (lake.py: model_id_of).
--
-- @param model_id  the model's id
-- @param name  the model's name
INSERT INTO models (model_id, name, created_at)
SELECT $model_id, $name, now()
WHERE NOT EXISTS (SELECT 1 FROM models)
