-- The spread of each item's time between runs of one build (_run_builds), on log times,
-- leaving out some runs (those a comparison judges) and those captured beside busy
-- processes (_quiet_run): what `item_noise` shows and
-- `compare` judges a change against.
--
-- @param item_kind  what an item is: 'workload' | 'kernel' | 'op'
-- @param excluded   run ids left out (a list)
-- @column build          the build (_run_builds)
-- @column model_id       its model
-- @column item           the item
-- @column runs           quiet runs of the build that time the item
-- @column var_log        the sample variance of the item's log time between them
CREATE OR REPLACE MACRO _item_noise_of(item_kind, excluded) AS TABLE
SELECT b.build, any_value(b.model_id) AS model_id, i.item, count(*) AS runs,
       var_samp(ln(i.time_us)) AS var_log
FROM _run_items(item_kind) AS i
JOIN _run_builds AS b USING (run_id)
JOIN runs AS r USING (run_id)
WHERE b.build IS NOT NULL AND i.time_us > 0 AND NOT list_contains(excluded, i.run_id)
  AND _quiet_run(r.others_cpu_pct)
GROUP BY b.build, i.item;
