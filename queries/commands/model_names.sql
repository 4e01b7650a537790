-- Every model's name. Parameters: none.
SELECT name FROM models ORDER BY name
