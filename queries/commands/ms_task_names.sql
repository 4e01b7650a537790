-- The names of a model's MetaSchedule tasks (as extraction names them: fused_conv2d_add,
-- not a structural hash). `export --to metaschedule` checks its op_names against them:
-- MetaScheduleTuneIRMod tunes every task whose name *contains* an op name.
--
-- @param model_ids  the models (a list of ids)
-- @returns task_name
SELECT DISTINCT t.task_name
FROM tasks AS t
JOIN sources AS s ON s.source_id = t.source_id
WHERE t.tuner = 'meta_schedule' AND list_contains($model_ids, s.model_id)
  AND t.task_name IS DISTINCT FROM t.structural_hash
ORDER BY t.task_name;
