-- Before and after tuning, per kernel symbol and for the whole model.
-- `tuned` marks the kernels a valid tuning record was applied to in the new build.
--
-- @param baseline  the untuned run's id
-- @param tuned  the tuned run's id
-- @param tuned_kernels  the kernels a valid tuning record was applied to (a list of names)
-- @returns item, tuned, calls, before_us, after_us, speedup
WITH k AS (
    SELECT run_id, func_name, sum(time_us) AS time_us, sum(calls) AS calls
    FROM nodes WHERE run_id IN ($baseline, $tuned) AND is_kernel GROUP BY ALL
),
e2e AS (
    SELECT run_id, list_median(end_to_end_us) AS time_us FROM runs WHERE run_id IN ($baseline, $tuned)
)
SELECT b.func_name AS item, list_contains($tuned_kernels, b.func_name) AS tuned, b.calls,
       b.time_us AS before_us, a.time_us AS after_us, b.time_us / nullif(a.time_us, 0) AS speedup
FROM k AS b JOIN k AS a ON a.func_name = b.func_name AND a.run_id = $tuned
WHERE b.run_id = $baseline
UNION ALL
SELECT '(end to end)', NULL, NULL, b.time_us, a.time_us, b.time_us / nullif(a.time_us, 0)
FROM e2e AS b JOIN e2e AS a ON a.run_id = $tuned WHERE b.run_id = $baseline
ORDER BY tuned DESC NULLS LAST, before_us DESC, item;
