-- The id of the model with this name (no row: a new model).
--
-- @param name  the model's name
-- @returns model_id
SELECT model_id FROM models WHERE name = $name
