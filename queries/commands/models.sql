-- Every model with its runs, sources and tasks.
--
-- @returns model, created_at, runs, sources, tasks, ir_calls
SELECT m.name AS model, m.created_at,
       (SELECT count(*) FROM runs AS r WHERE r.model_id = m.model_id) AS runs,
       (SELECT count(*) FROM sources AS s WHERE s.model_id = m.model_id) AS sources,
       (SELECT count(*) FROM model_tasks AS t WHERE t.model_id = m.model_id) AS tasks,
       (SELECT count(*) FROM ir_calls AS c JOIN sources AS s USING (source_id) WHERE s.model_id = m.model_id) AS ir_calls
FROM models AS m
ORDER BY m.model_id;
