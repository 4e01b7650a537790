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
WITH options AS (
    SELECT m.run_id, m.func_name, m.workload_key, t.tuner, t.task_name, t.task_args,
           row_number() OVER (PARTITION BY m.run_id, m.func_name
                              ORDER BY (kernel_symbol(t.task_name)
                                        = kernel_symbol(m.func_name)) DESC,
                                       (t.variant IS NOT DISTINCT FROM k.kernel_variant) DESC,
                                       t.task_name, t.first_source_id) AS preference
    FROM kernel_matches_live AS m
    JOIN run_kernels AS k USING (run_id, func_name)
    JOIN runs AS r USING (run_id)
    LEFT JOIN model_tasks AS t ON t.model_id = r.model_id
          AND (coalesce(t.workload_key, 'args ' || t.args_flat) = m.workload_key
               OR t.args_flat = k.args_flat)
    WHERE m.workload_key IS NOT NULL
)
SELECT run_id, func_name, workload_key,
       any_value(tuner) FILTER (preference = 1) AS tuner,
       any_value(task_name) FILTER (preference = 1) AS task_name,
       any_value(task_args) FILTER (preference = 1) AS task_args,
       list(task_name ORDER BY preference) FILTER (task_name IS NOT NULL) AS task_names
FROM options
GROUP BY run_id, func_name, workload_key;
