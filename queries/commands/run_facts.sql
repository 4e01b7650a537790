-- What a run's total time is and how much of it hotdb attributes, for the notes under a
-- ranking: the tunable time coverage is taken against, and what lies apart from it.
--
-- @param run_id  the run's id
-- @returns total_time_us, matched_pct, ambiguous_pct, unmatched_tunable_pct, not_tunable_pct,
--          with_task_pct, tunable_time_us, tunable_pct, untunable_pct, overhead_pct
SELECT total_time_us, matched_pct, ambiguous_pct, unmatched_tunable_pct, not_tunable_pct, with_task_pct,
       tunable_time_us, tunable_pct, untunable_pct, overhead_pct
FROM run_totals WHERE run_id = $run_id
