-- What a run's total time is and how much of it hotdb attributes, for the notes under a
-- ranking: the tunable time coverage is taken against, what lies apart from it, and
-- whether other processes shared the CPUs while it was captured (_quiet_run).
--
-- @param run_id  the run's id
-- @returns total_time_us, matched_pct, ambiguous_pct, unmatched_tunable_pct, not_tunable_pct,
--          with_task_pct, tunable_time_us, tunable_pct, untunable_pct, overhead_pct, others_cpu_pct,
--          quiet, load_slowdown
SELECT t.total_time_us, t.matched_pct, t.ambiguous_pct, t.unmatched_tunable_pct, t.not_tunable_pct, t.with_task_pct,
       t.tunable_time_us, t.tunable_pct, t.untunable_pct, t.overhead_pct, r.others_cpu_pct,
       _quiet_run(r.others_cpu_pct) AS quiet, _load_slowdown(r.others_cpu_pct) AS load_slowdown
FROM run_totals AS t JOIN runs AS r USING (run_id) WHERE run_id = $run_id
