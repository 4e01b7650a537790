-- The model a run belongs to.
--
-- @param run_id  the run's id
-- @returns model_id
SELECT model_id FROM runs WHERE run_id = $run_id
