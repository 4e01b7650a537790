-- A run's end-to-end time: the median of its samples (a live capture's), else its nodes' sum.
--
-- @param run_id  the run's id
-- @returns end_to_end_us
SELECT coalesce(list_median(r.end_to_end_us), (SELECT sum(time_us) FROM nodes WHERE run_id = $run_id)) AS end_to_end_us
FROM runs AS r WHERE r.run_id = $run_id;
