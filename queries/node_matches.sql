-- One row per node of a run: the task it was matched to, by which rule, how surely.
-- A node inherits the match of its kernel (every call of one kernel computes the same
-- workload).
--
-- @column run_id       the run
-- @column node_index   position in the profile
-- @column node_name    graph node name
-- @column func_name    kernel symbol
-- @column kernel_family anchor op family read from the symbol
-- @column time_us      node time per inference, in microseconds
-- @column calls        kernel calls the node stands for
-- @column workload_key matched workload; NULL when ambiguous or unmatched
-- @column tuner        tuner of the matched task
-- @column task_name    matched task; NULL when no task of the model has the workload
-- @column task_args    matched task's args as JSON
-- @column method       ladder rule that decided (see kernel_matches)
-- @column confidence   0..1 (see kernel_matches); NULL when nothing was chosen
-- @column candidates   number of candidate workloads the kernel had
-- @column candidate_keys candidate workloads
-- @column reason       why a node is ambiguous or unmatched
-- @column time_class   'tunable' (a kernel a tuner can act on, matched or not), 'untunable' (a
--                      kernel no tuner tunes: layout_transform, pooling, ...) or 'overhead' (not
--                      a kernel: the runtime's own time, VM builtins, a report's unlisted rest)
CREATE OR REPLACE VIEW node_matches AS
SELECT n.run_id, n.node_index, n.node_name, n.func_name, n.kernel_family, n.time_us, n.calls,
       m.workload_key, m.tuner, m.task_name, m.task_args, m.method, m.confidence,
       m.candidates, m.candidate_keys, m.reason,
       CASE WHEN NOT n.is_kernel THEN 'overhead'
            WHEN m.workload_key IS NULL AND m.reason LIKE 'not tunable%' THEN 'untunable'
            ELSE 'tunable' END AS time_class
FROM run_nodes AS n
JOIN kernel_match_results AS m USING (run_id, func_name);
