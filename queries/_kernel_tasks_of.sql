-- The task choice of `kernel_tasks_live`, over any relation of ladder results (run_id,
-- func_name, workload_key): the view's, or the rows a re-match has just computed, so that
-- a re-match runs the ladder once (hotdb/store/rematch.py).
--
-- @param matches  the name of a table or view of kernel_matches_live's rows
-- @column run_id       the run
-- @column func_name    kernel symbol
-- @column workload_key workload the kernel computes
-- @column tuner        tuner of the chosen task; NULL when the model has no task for the workload
-- @column task_name    chosen task's name
-- @column task_args    chosen task's args as JSON
-- @column task_names   every task of the model with this workload
CREATE OR REPLACE MACRO _kernel_tasks_of(matches) AS TABLE
WITH options AS (
    SELECT m.run_id, m.func_name, m.workload_key, t.tuner, t.task_name, t.task_args,
           row_number() OVER (PARTITION BY m.run_id, m.func_name
                              ORDER BY (kernel_symbol(t.task_name)
                                        = kernel_symbol(m.func_name)) DESC,
                                       (t.variant IS NOT DISTINCT FROM k.kernel_variant) DESC,
                                       t.task_name, t.first_source_id) AS preference
    FROM query_table(matches) AS m
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
