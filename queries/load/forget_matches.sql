-- The stored matches of some runs, deleted before they are decided again (rematch.sql).
--
-- @param runs  run ids (a list)
DELETE FROM kernel_match_results WHERE run_id IN (SELECT unnest($runs))
