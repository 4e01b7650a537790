-- Every node of one run with its task or candidates, the rule that decided and how sure.
--
-- @param run_id  the run's id
-- @returns node_index, node, func_name, time_us, task_name, task_args, workload, method,
--          confidence, candidates, candidate_keys, reason
SELECT node_index, node_name AS node, func_name, time_us, task_name, task_args,
       workload_key AS workload, method, confidence, candidates, candidate_keys, reason
FROM node_matches
WHERE run_id = $run_id
ORDER BY node_index;
