-- The printed task listings of a model (Task(...) reprs in extraction order, not logs),
-- newest first, with the position of every task in them: where `tvmc tune --tasks`
-- numbers come from.
--
-- @param model_id  the model's id
-- @returns source_id, task_name, task_args, task_index
SELECT s.source_id, t.task_name, t.task_args, t.task_index
FROM sources AS s
JOIN tasks AS t USING (source_id)
WHERE s.model_id = $model_id AND s.role = 'tasks' AND s.format = 'autotvm-tasks'
  AND NOT EXISTS (SELECT 1 FROM tuning_records AS r WHERE r.source_id = s.source_id)
ORDER BY s.source_id DESC, t.task_index
