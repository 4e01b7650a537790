-- Every model's name.
--
-- @returns name
SELECT name FROM models ORDER BY name
