-- Runs A against runs B (one run each, or the replicates of each), item by item, every
-- change judged against the noise between runs (queries/_compare_items.sql says how).
-- The whole run comes first, then the largest changes.
--
-- @param a_runs  side A's run ids (a list)
-- @param b_runs  side B's run ids (a list)
-- @param by  what an item is: 'workload' | 'kernel' | 'op'
-- @param threshold_pct  the least change, in %, that is told
-- @param floor_pct  the noise between captures assumed where only one capture's samples judge
-- `measured`: a side timed the item (a VM builtin's call is not timed: it holds no data).
--
-- @returns item, task_name, task_args, time_a_us, time_b_us, delta_us, ratio, ratio_low,
--          ratio_high, runs_a, runs_b, samples_a, samples_b, noise_from, noise_pct, p_value,
--          significant, verdict, reason, measured
SELECT *, item = '(end to end)' OR coalesce(time_a_us, 0) > 0 OR coalesce(time_b_us, 0) > 0 AS measured
FROM _compare_items($a_runs, $b_runs, $by, $threshold_pct, $floor_pct)
ORDER BY item <> '(end to end)', abs(coalesce(time_b_us, 0) - coalesce(time_a_us, 0)) DESC, item
