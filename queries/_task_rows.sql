-- One row per task row of any source, with its model, under the name hotdb knows it by:
-- a MetaSchedule database names each workload by its structural hash (MetaSchedule calls
-- every workload `main`), while a live capture names the same task like its kernel; a
-- database row whose structural hash a named task of the same model has takes that
-- task's name and args, so that its records are that task's.
--
-- @column model_id          model of the source
-- @column source_id         the source the task was read from
-- @column task_index        its position in that source
-- @column tuner             autotvm, auto_scheduler or meta_schedule
-- @column task_name         the task's name (a database row: the named task's)
-- @column task_args         the task's args as JSON (a database row: the named task's)
-- @column task_kwargs       as in tasks
-- @column target            as in tasks (normal form)
-- @column line_no           as in tasks
-- @column op_family         as in tasks
-- @column variant           as in tasks
-- @column workload_key      as in tasks
-- @column out_shape_logical as in tasks
-- @column args_flat         as in tasks
-- @column weight            as in tasks
-- @column structural_hash   as in tasks
-- @column data_shape_logical as in tasks
-- @column weight_shape_logical as in tasks
-- @column flop              as in tasks (MetaSchedule's tuning state)
-- @column trials            as in tasks
-- @column best_latency_us   as in tasks
-- @column terminated        as in tasks
-- @column raw_line          as in tasks (a MetaSchedule workload's line)
CREATE OR REPLACE VIEW _task_rows AS
WITH source_tasks AS (
    SELECT s.model_id, t.*
    FROM tasks AS t
    JOIN sources AS s USING (source_id)
),
named AS (
    SELECT model_id, structural_hash, min(task_name) AS task_name, min(task_args) AS task_args
    FROM source_tasks
    WHERE tuner = 'meta_schedule' AND structural_hash IS NOT NULL AND task_name <> structural_hash
    GROUP BY ALL
)
SELECT t.* REPLACE (coalesce(n.task_name, t.task_name) AS task_name, coalesce(n.task_args, t.task_args) AS task_args)
FROM source_tasks AS t
LEFT JOIN named AS n ON t.tuner = 'meta_schedule' AND t.task_name = t.structural_hash
     AND n.model_id = t.model_id AND n.structural_hash = t.structural_hash;
