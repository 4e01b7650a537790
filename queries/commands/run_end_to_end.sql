-- A run's end-to-end time: the median of its samples (a live capture's), else its nodes' sum.
-- Parameters: $run_id.
SELECT coalesce(list_median(r.end_to_end_us), (SELECT sum(time_us) FROM nodes WHERE run_id = $run_id))
FROM runs AS r WHERE r.run_id = $run_id;
