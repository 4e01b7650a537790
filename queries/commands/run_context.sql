-- The run a ranking means (by label; else the latest run of the model, or of every
-- model) and what its model has besides profiles, for the hints under the ranking: tasks
-- to rank (any tuner, printed, logged or captured) and IR that gives kernels their
-- workloads. One query: a command's start pays a few ms for each (bench/cli_start.py).
-- No row: there is no such run (hotdb/ops/common.py resolve_run says why).
--
-- @param label  the run's label (NULL: the latest run)
-- @param model  the model's name, for its latest run (NULL: any model's)
-- @returns run_id, label, model, has_tasks, has_ir
WITH chosen AS (
    SELECT r.run_id, r.label, r.model_id, m.name AS model
    FROM runs AS r JOIN models AS m USING (model_id)
    WHERE CASE WHEN $label IS NOT NULL THEN r.label = $label ELSE $model IS NULL OR m.name = $model END
    ORDER BY r.created_at DESC, r.run_id DESC
    LIMIT 1
)
SELECT c.run_id, c.label, c.model,
       count(*) FILTER (s.role = 'tasks') > 0 AS has_tasks,
       count(*) FILTER (s.role = 'ir') > 0 AS has_ir
FROM chosen AS c
LEFT JOIN sources AS s ON s.model_id = c.model_id
GROUP BY ALL
