-- The ids of the runs with these labels.
--
-- @param labels  the labels (a list)
-- @returns run_id
SELECT run_id FROM runs WHERE label IN (SELECT unnest($labels))
