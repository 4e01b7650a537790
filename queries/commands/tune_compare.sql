-- Before and after tuning, per kernel symbol and for the whole model, each change judged
-- as `compare` judges it (queries/_compare_items.sql: the runs' samples, or the spread
-- between runs where the build has others). `tuned` marks the kernels a valid tuning
-- record was applied to in the new build; speedup = before / after, with its 95 %
-- interval.
--
-- @param baseline  the untuned run's id
-- @param tuned  the tuned run's id
-- @param tuned_kernels  the kernels a valid tuning record was applied to (a list of names)
-- @param floor_pct  the noise between captures assumed where only one capture's samples judge
-- @returns item, tuned, before_us, after_us, speedup, speedup_low, speedup_high, verdict, noise_from, reason
SELECT CASE WHEN item LIKE 'kernel %' THEN substr(item, 8) ELSE item END AS item,
       CASE WHEN item LIKE 'kernel %' THEN list_contains($tuned_kernels, substr(item, 8)) END AS tuned,
       time_a_us AS before_us, time_b_us AS after_us, 1 / ratio AS speedup,
       1 / ratio_high AS speedup_low, 1 / ratio_low AS speedup_high, verdict, noise_from, reason
FROM _compare_items([$baseline], [$tuned], 'kernel', 0, $floor_pct)
WHERE time_a_us IS NOT NULL AND time_b_us IS NOT NULL
ORDER BY tuned DESC NULLS LAST, before_us DESC, item
