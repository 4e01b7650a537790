-- Computed live, stored with the ladder's result (see `kernel_tasks`): one row per
-- matched kernel, the tuning task(s) of its model that compute its workload.
-- When several tasks share a workload (a direct and a winograd template, a named task and
-- a database entry), the task named like the kernel is preferred, then the one whose
-- template the kernel's symbol shows, then the first by name; all are listed.
-- Tasks known only by argument dims (auto_scheduler, MetaSchedule) join on the kernel's.
--
-- @column run_id       the run
-- @column func_name    kernel symbol
-- @column workload_key workload the kernel computes
-- @column tuner        tuner of the chosen task; NULL when the model has no task for the workload
-- @column task_name    chosen task's name
-- @column task_args    chosen task's args as JSON
-- @column task_names   every task of the model with this workload
CREATE OR REPLACE VIEW kernel_tasks_live AS
FROM _kernel_tasks_of('kernel_matches_live');
