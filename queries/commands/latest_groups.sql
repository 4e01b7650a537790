-- A model's latest runs, a replicate group counted as one: what `compare` compares when
-- no runs are named (the latest against the one before it).
--
-- @param model  the model's name
-- @param limit  how many groups
-- @returns name, run_ids
SELECT coalesce(r.replicate_of, r.label) AS name, list(r.run_id ORDER BY r.created_at, r.run_id) AS run_ids
FROM runs AS r JOIN models AS m USING (model_id)
WHERE m.name = $model
GROUP BY coalesce(r.replicate_of, r.label)
ORDER BY max(r.created_at) DESC, max(r.run_id) DESC
LIMIT $limit
