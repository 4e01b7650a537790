-- The runs of some models, whose matches are decided again (hotdb/store/rematch.py).
--
-- @param models  model ids (a list)
-- @returns run_id
SELECT run_id FROM runs WHERE model_id IN (SELECT unnest($models))
