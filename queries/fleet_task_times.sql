-- Task times over many models at once (`hotdb top --all-models`): one row per workload
-- over the latest run of every model (on one device, where one is named), its time summed
-- across models, each model's times scaled by its weight, ranked, with share and
-- cumulative share of the models' weighted tunable kernel time (node_matches.time_class
-- 'tunable'; tunable kernels no task acts on count in the total only). A workload several
-- models share is one tuning task.
--
-- @param weight_models  model names whose times are scaled (a list; others weigh 1)
-- @param weight_values  their weights, in the same order (a list of numbers)
-- @param device         only runs measured on this device (run_device.sql); NULL: any
-- @column rank           1 for the workload holding the most weighted time
-- @column task_name      a task of some model chosen for the workload (NULL: no model has a task for it)
-- @column task_args      that task's arguments, as JSON text
-- @column workload_key   canonical workload, or 'args <dims>' for a task known by argument shapes only
-- @column time_us        weighted time of the workload over the models' latest runs, in microseconds per inference
-- @column calls          kernel calls of the workload per inference, over the models
-- @column share_pct      share of the models' weighted tunable kernel time
-- @column cumulative_pct share of this and every higher-ranked workload
-- @column models         the models whose latest run computes the workload
-- @column tuner          the chosen task's tuner
CREATE OR REPLACE MACRO fleet_task_times(weight_models, weight_values, device) AS TABLE
WITH latest AS (
    SELECT r.model_id, arg_max(r.run_id, r.created_at) AS run_id FROM runs AS r
    WHERE device IS NULL OR run_device(r.device_key) = device
    GROUP BY r.model_id
),
weighted AS (
    SELECT l.run_id, m.name AS model,
           coalesce(CAST(weight_values AS DOUBLE[])[list_position(CAST(weight_models AS VARCHAR[]), m.name)], 1.0) AS weight
    FROM latest AS l JOIN models AS m USING (model_id)
),
per_workload AS (  -- IN reaches the nodes scan; a join with `latest` would not
    SELECT p.workload_key,
           any_value(p.task_name) AS task_name, any_value(p.task_args) AS task_args, any_value(p.tuner) AS tuner,
           sum(p.time_us * w.weight) AS time_us, sum(p.calls) AS calls,
           list_sort(list_distinct(list(w.model))) AS models
    FROM node_matches AS p JOIN weighted AS w USING (run_id)
    WHERE p.run_id IN (SELECT run_id FROM latest) AND p.time_class = 'tunable'
    GROUP BY p.workload_key
),
shared AS (
    SELECT p.*, 100.0 * p.time_us / sum(p.time_us) OVER () AS share_pct FROM per_workload AS p
)
SELECT row_number() OVER (ORDER BY s.time_us DESC, s.workload_key) AS rank, s.task_name, s.task_args,
       s.workload_key, s.time_us, s.calls, s.share_pct,
       sum(s.share_pct) OVER (ORDER BY s.time_us DESC, s.workload_key ROWS UNBOUNDED PRECEDING) AS cumulative_pct,
       s.models, s.tuner
FROM shared AS s
WHERE s.workload_key IS NOT NULL;
