-- Store what the matching ladder decided for the kernels of some runs (their old results
-- deleted first, forget_matches.sql; the ladder's rows computed once into the temporary
-- table _matched, match_runs.sql): each kernel's workload, rule, confidence and chosen
-- task, stamped with the time (hotdb/store/rematch.py).
--
-- @param runs  run ids (a list)
INSERT INTO kernel_match_results
SELECT m.run_id, m.func_name, m.kernel_family, m.calls, m.time_us, m.workload_key, m.method, m.confidence,
       m.candidates, m.candidate_keys, m.reason, t.tuner, t.task_name, t.task_args, t.task_names, now()
FROM _matched AS m
LEFT JOIN _kernel_tasks_of('_matched') AS t USING (run_id, func_name)
WHERE m.run_id IN (SELECT unnest($runs))
