-- The latest runs, newest first: of one model, or of every model.
--
-- @param model  the model's name (NULL: any)
-- @param limit  how many runs
-- @returns run_id, label, model
SELECT r.run_id, r.label, m.name AS model
FROM runs AS r JOIN models AS m USING (model_id)
WHERE $model IS NULL OR m.name = $model
ORDER BY r.created_at DESC, r.run_id DESC
LIMIT $limit
