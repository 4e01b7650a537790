-- The run with this label.
--
-- @param label  the run's label
-- @returns run_id, label
SELECT run_id, label FROM runs WHERE label = $label
