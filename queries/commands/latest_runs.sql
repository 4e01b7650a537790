-- The latest runs, newest first: of one model, or of every model. Parameters: $model (NULL: any),
-- $limit.
SELECT r.run_id, r.label, m.name AS model
FROM runs AS r JOIN models AS m USING (model_id)
WHERE $model IS NULL OR m.name = $model
ORDER BY r.created_at DESC, r.run_id DESC
LIMIT $limit
