-- Which runs of a model, among some, were captured beside busy processes (_quiet_run), how
-- much of the CPUs the others used, and the most that can have slowed the run (_load_slowdown).
--
-- @param model   the model's name
-- @param labels  run labels of it (a list)
-- @returns label, others_cpu_pct, load_slowdown
SELECT r.label, r.others_cpu_pct, _load_slowdown(r.others_cpu_pct) AS load_slowdown
FROM runs AS r JOIN models AS m USING (model_id)
WHERE m.name = $model AND list_contains($labels, r.label) AND NOT _quiet_run(r.others_cpu_pct)
ORDER BY r.run_id
