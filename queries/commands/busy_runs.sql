-- The runs of a comparison captured beside busy processes (_quiet_run), which it leaves
-- out of their side, or cannot judge where a side has no other.
--
-- @param runs  the compared runs' ids (a list)
-- @returns label, others_cpu_pct
SELECT label, others_cpu_pct
FROM runs
WHERE list_contains($runs, run_id) AND NOT _quiet_run(others_cpu_pct)
ORDER BY label
