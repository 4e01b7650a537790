-- One row per distinct tuning task of a model: the same (tuner, task name, args) from
-- several files (a task listing and a log) is one task; a MetaSchedule database's
-- workload (which MetaSchedule names by its structural hash) is the task of a live
-- capture with the same structural hash. Tuning records of the task are
-- summarised; hotdb tasks lists them. A task printed with its tensors only (no strides,
-- no padding) takes its workload from the model's IR: the one workload with the task's
-- op family and logical operands.
--
-- @column model_id          model the task belongs to
-- @column tuner             autotvm, auto_scheduler or meta_schedule
-- @column task_name         the tuner's name of the task (e.g. conv2d_NCHWc.x86)
-- @column task_args         task arguments as JSON, as AutoTVM serialises them
-- @column targets           distinct targets the task was logged for
-- @column op_family         canonical op family of the task's workload
-- @column variant           implementation template (NCHWc, winograd, direct, ...)
-- @column workload_key      canonical workload, NULL when hotdb cannot canonicalise the template
-- @column workload_from     'task' when the task's own arguments give the workload, 'ir' when the IR call with the task's operands does
-- @column out_shape_logical logical output shape of the workload
-- @column args_flat         the task's argument dims, comma-joined (auto_scheduler keys), if known
-- @column data_shape_logical   logical data shape of the task, if known
-- @column weight_shape_logical logical weight shape of the task, if known
-- @column weight            calls per inference the tuner counted for the task, if it says
-- @column structural_hash   structural hash of the task's function, if the tuner gives it
-- @column first_source_id   first source file the task was read from
-- @column first_task_index  its position in that file
-- @column record_count      tuning records of the task over all sources of the model
-- @column valid_record_count its records that measured a time (not a build, run or timeout error)
-- @column best_cost_us      fastest successful measured mean cost, in microseconds
CREATE OR REPLACE VIEW model_tasks AS
WITH records AS (
    SELECT t.model_id, t.tuner, t.task_name, t.task_args,
           count(*) AS record_count,
           count(*) FILTER (WHERE r.error_no = 0) AS valid_record_count,
           min(list_avg(r.costs_s)) FILTER (WHERE r.error_no = 0) * 1e6 AS best_cost_us
    FROM tuning_records AS r
    JOIN _task_rows AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
    GROUP BY ALL
),
grouped AS (
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
        any_value(t.data_shape_logical) AS data_shape_logical,
        any_value(t.weight_shape_logical) AS weight_shape_logical,
        max(t.weight) AS weight,
        any_value(t.structural_hash) AS structural_hash,
        min(t.source_id) AS first_source_id,
        arg_min(t.task_index, t.source_id) AS first_task_index,
        coalesce(any_value(r.record_count), 0) AS record_count,
        coalesce(any_value(r.valid_record_count), 0) AS valid_record_count,
        any_value(r.best_cost_us) AS best_cost_us
    FROM _task_rows AS t
    LEFT JOIN records AS r USING (model_id, tuner, task_name, task_args)
    GROUP BY t.model_id, t.tuner, t.task_name, t.task_args
),
from_ir AS (  -- tasks printed with their tensors only: the IR workload with those operands, if one
    SELECT g.model_id, g.tuner, g.task_name, g.task_args,
           CASE WHEN count(DISTINCT w.workload_key) = 1 THEN any_value(w.workload_key) END AS workload_key
    FROM grouped AS g
    JOIN sources AS s ON s.model_id = g.model_id AND s.role = 'ir'
    JOIN ir_calls AS c ON c.source_id = s.source_id
    JOIN workloads AS w ON w.workload_key = c.workload_key
    WHERE g.workload_key IS NULL AND g.data_shape_logical IS NOT NULL
      AND w.data_shape = g.data_shape_logical AND w.weight_shape = g.weight_shape_logical
      AND (w.op_family = g.op_family
           OR w.op_family IN (SELECT workload_family FROM family_compat AS f WHERE f.kernel_family = g.op_family))
    GROUP BY ALL
)
SELECT
    g.model_id, g.tuner, g.task_name, g.task_args, g.targets, g.op_family, g.variant,
    coalesce(g.workload_key, i.workload_key) AS workload_key,
    CASE WHEN g.workload_key IS NOT NULL THEN 'task' WHEN i.workload_key IS NOT NULL THEN 'ir' END AS workload_from,
    coalesce(g.out_shape_logical, w.out_shape) AS out_shape_logical,
    g.args_flat, g.data_shape_logical, g.weight_shape_logical, g.weight, g.structural_hash,
    g.first_source_id, g.first_task_index, g.record_count, g.valid_record_count, g.best_cost_us
FROM grouped AS g
LEFT JOIN from_ir AS i USING (model_id, tuner, task_name, task_args)
LEFT JOIN workloads AS w ON w.workload_key = i.workload_key;
