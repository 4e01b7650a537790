-- What a run's total time is and how much of it hotdb attributes, for the notes under a
-- ranking. Parameters: $run_id.
SELECT total_time_us, matched_pct, ambiguous_pct, unmatched_tunable_pct, not_tunable_pct, with_task_pct
FROM run_totals WHERE run_id = $run_id
