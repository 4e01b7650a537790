-- A model, the first time an ingest names it.
--
-- @param name  its name
-- @param now  the ingest's time
-- @returns model_id
INSERT INTO models (model_id, name, created_at) VALUES (nextval('model_id_seq'), $name, $now)
RETURNING model_id
