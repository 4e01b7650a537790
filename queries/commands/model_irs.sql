-- The IRs a model's live captures were made from (runs.ir_sha256), newest first.
--
-- @param model  the model's name
-- @returns ir_sha256, last_captured
SELECT r.ir_sha256, max(r.created_at) AS last_captured
FROM runs AS r JOIN models AS m USING (model_id)
WHERE m.name = $model AND r.ir_sha256 IS NOT NULL
GROUP BY r.ir_sha256
ORDER BY last_captured DESC
