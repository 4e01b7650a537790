-- The matching ladder's rows for some runs, computed once (kernel_matches_live) into a
-- temporary table that rematch.sql stores with their tasks: the task choice reads the
-- same rows instead of running the ladder a second time.
--
-- @param runs  run ids (a list)
CREATE OR REPLACE TEMP TABLE _matched AS
SELECT * FROM kernel_matches_live WHERE run_id IN (SELECT unnest($runs))
