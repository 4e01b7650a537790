-- Every distinct task of a model and target, with its source format, canonical
-- workload, weight, its tuning records (all, and those that measured a time) and the
-- best one. The target is shown as TVM's text form. A task listed without a target (a printed
-- Task repr) is the same task as a logged one with the same name and args, and is only
-- listed on its own when no log names a target for it.
--
-- @param model  the model's name (NULL: every model)
-- @returns model, tuner, task_name, task_args, target, workload, op_family, variant, weight,
--          formats, records, valid_records, best_cost_us, best_config_index
WITH rows AS (
    SELECT m.name AS model, t.tuner, t.task_name, t.task_args, t.target, t.workload_key, t.op_family,
           t.variant, t.args_flat, t.weight, s.format, t.source_id, t.task_index
    FROM _task_rows AS t
    JOIN sources AS s USING (source_id)
    JOIN models AS m ON m.model_id = t.model_id
    WHERE $model IS NULL OR m.name = $model
),
targeted AS (
    SELECT DISTINCT model, tuner, task_name, task_args FROM rows WHERE target IS NOT NULL
),
records AS (
    SELECT m.name AS model, t.tuner, t.task_name, t.task_args, r.target,
           count(*) AS records,
           count(*) FILTER (r.error_no = 0) AS valid_records,
           min(list_avg(r.costs_s)) FILTER (r.error_no = 0) * 1e6 AS best_cost_us,
           arg_min(r.config_index, list_avg(r.costs_s)) FILTER (r.error_no = 0) AS best_config_index
    FROM tuning_records AS r
    JOIN _task_rows AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
    JOIN models AS m ON m.model_id = t.model_id
    GROUP BY ALL
)
SELECT r.model, r.tuner, r.task_name, r.task_args, target_text(r.target) AS target,
       coalesce(r.workload_key, CASE WHEN r.args_flat IS NOT NULL THEN 'args ' || r.args_flat END) AS workload,
       any_value(r.op_family) AS op_family, any_value(r.variant) AS variant, max(r.weight) AS weight,
       list_sort(list_distinct(list(r.format))) AS formats,
       coalesce(any_value(c.records), 0) AS records,
       coalesce(any_value(c.valid_records), 0) AS valid_records,
       any_value(c.best_cost_us) AS best_cost_us,
       any_value(c.best_config_index) AS best_config_index
FROM rows AS r
LEFT JOIN records AS c ON c.model = r.model AND c.tuner = r.tuner AND c.task_name = r.task_name
     AND c.task_args = r.task_args AND c.target IS NOT DISTINCT FROM r.target
WHERE r.target IS NOT NULL
   OR NOT EXISTS (SELECT 1 FROM targeted AS g WHERE g.model = r.model AND g.tuner = r.tuner
                  AND g.task_name = r.task_name AND g.task_args = r.task_args)
GROUP BY r.model, r.tuner, r.task_name, r.task_args, r.target, r.workload_key, r.args_flat
ORDER BY r.model, min(r.source_id), min(r.task_index);
