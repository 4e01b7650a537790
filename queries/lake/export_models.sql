-- The models of a database file `hotdb lake import` copies, in the order they were made.
--
-- @returns model_id, name
SELECT model_id, name FROM models ORDER BY model_id
