-- Tuning-record lines, unchanged, of the tasks an export selected, in file order.
--
-- @param model_ids  the models whose records are exported (a list of ids)
-- @param tuner  the tuner of the tasks
-- @param tasks  the tasks, each task_name || ' ' || task_args (a list)
-- @returns raw_line
SELECT r.raw_line
FROM tuning_records AS r
JOIN tasks AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
JOIN sources AS s ON s.source_id = r.source_id
WHERE list_contains($model_ids, s.model_id) AND t.tuner = $tuner
  AND list_contains($tasks, t.task_name || ' ' || t.task_args)
ORDER BY r.source_id, r.line_no;
