-- The model a run belongs to. Parameters: $run_id.
SELECT model_id FROM runs WHERE run_id = $run_id
