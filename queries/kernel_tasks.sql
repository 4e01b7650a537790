-- One row per matched kernel: the tuning task of its model chosen for its workload (the
-- task named like the kernel, then the template its symbol shows, then the first by
-- name), and every task that computes it. Stored at ingest with the kernel's match.
--
-- @column run_id       the run
-- @column func_name    kernel symbol
-- @column workload_key workload the kernel computes
-- @column tuner        tuner of the chosen task; NULL when the model has no task for the workload
-- @column task_name    chosen task's name
-- @column task_args    chosen task's args as JSON
-- @column task_names   every task of the model computing the workload, preferred first
CREATE OR REPLACE VIEW kernel_tasks AS
SELECT run_id, func_name, workload_key, tuner, task_name, task_args, task_names
FROM kernel_match_results
WHERE workload_key IS NOT NULL;
