-- Store what the matching ladder decides for the kernels of some runs (their old results
-- deleted first, forget_matches.sql): each kernel's workload, rule, confidence and chosen
-- task, read from the live views and stamped with the time (hotdb/store/rematch.py).
--
-- @param runs  run ids (a list)
INSERT INTO kernel_match_results
SELECT m.run_id, m.func_name, m.kernel_family, m.calls, m.time_us, m.workload_key, m.method, m.confidence,
       m.candidates, m.candidate_keys, m.reason, t.tuner, t.task_name, t.task_args, t.task_names, now()
FROM kernel_matches_live AS m
LEFT JOIN kernel_tasks_live AS t USING (run_id, func_name)
WHERE m.run_id IN (SELECT unnest($runs))
