-- One row per distinct tuning task of a model: the same (tuner, task name, args) from
-- several files (a task listing and a log) is one task. Tuning records of the task are
-- summarised; hotdb tasks lists them.
--
-- @column model_id          model the task belongs to
-- @column tuner             autotvm, auto_scheduler or meta_schedule
-- @column task_name         the tuner's name of the task (e.g. conv2d_NCHWc.x86)
-- @column task_args         task arguments as JSON, as AutoTVM serialises them
-- @column targets           distinct targets the task was logged for
-- @column op_family         canonical op family of the task's workload
-- @column variant           implementation template (NCHWc, winograd, direct, ...)
-- @column workload_key      canonical workload, NULL when hotdb cannot canonicalise the template
-- @column out_shape_logical logical output shape of the workload
-- @column args_flat         the task's argument dims, comma-joined (auto_scheduler keys), if known
-- @column weight            calls per inference the tuner counted for the task, if it says
-- @column structural_hash   structural hash of the task's function, if the tuner gives it
-- @column first_source_id   first source file the task was read from
-- @column first_task_index  its position in that file
-- @column record_count      tuning records of the task over all sources of the model
-- @column best_cost_us      fastest successful measured mean cost, in microseconds
CREATE OR REPLACE VIEW model_tasks AS
WITH task_rows AS (
    SELECT s.model_id, t.*
    FROM tasks AS t
    JOIN sources AS s USING (source_id)
),
records AS (
    SELECT s.model_id, t.tuner, t.task_name, t.task_args,
           count(*) AS record_count,
           min(list_avg(r.costs_s)) FILTER (WHERE r.error_no = 0) * 1e6 AS best_cost_us
    FROM tuning_records AS r
    JOIN sources AS s USING (source_id)
    JOIN tasks AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
    GROUP BY ALL
)
SELECT
    t.model_id,
    t.tuner,
    t.task_name,
    t.task_args,
    list_sort(list_distinct(list(t.target))) AS targets,
    any_value(t.op_family) AS op_family,
    any_value(t.variant) AS variant,
    any_value(t.workload_key) AS workload_key,
    any_value(t.out_shape_logical) AS out_shape_logical,
    any_value(t.args_flat) AS args_flat,
    max(t.weight) AS weight,
    any_value(t.structural_hash) AS structural_hash,
    min(t.source_id) AS first_source_id,
    arg_min(t.task_index, t.source_id) AS first_task_index,
    coalesce(any_value(r.record_count), 0) AS record_count,
    any_value(r.best_cost_us) AS best_cost_us
FROM task_rows AS t
LEFT JOIN records AS r USING (model_id, tuner, task_name, task_args)
GROUP BY t.model_id, t.tuner, t.task_name, t.task_args;
