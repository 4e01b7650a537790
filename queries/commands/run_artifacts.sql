-- What the model of a run has besides its profiles, for the hints under a ranking: tasks
-- to rank (any tuner, printed, logged or captured) and IR that gives kernels their workloads.
--
-- @param run_id  the run's id
-- @returns model, has_tasks, has_ir
SELECT m.name AS model,
       count(*) FILTER (s.role = 'tasks') > 0 AS has_tasks,
       count(*) FILTER (s.role = 'ir') > 0 AS has_ir
FROM runs AS r
JOIN models AS m USING (model_id)
LEFT JOIN sources AS s ON s.model_id = r.model_id
WHERE r.run_id = $run_id
GROUP BY m.name
