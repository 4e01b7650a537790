-- How many runs a model has, for the label of its next (MODEL-N).
--
-- @param model_id  the model
-- @returns runs
SELECT count(*) AS runs FROM runs WHERE model_id = $model_id
