-- Every model's id: a change of the matching ladder re-matches every run.
--
-- @returns model_id
SELECT model_id FROM models
