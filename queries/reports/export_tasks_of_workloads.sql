-- Every task of any model that computes one of the given workloads, for exports over
-- all models. Parameters: $workloads (list of workload keys).
SELECT t.model_id, t.tuner, t.task_name, t.task_args, coalesce(t.workload_key, 'args ' || t.args_flat) AS workload,
       t.weight, t.structural_hash, coalesce(t.record_count, 0) AS records, t.best_cost_us,
       t.first_source_id AS source_id, t.first_task_index AS task_index
FROM model_tasks AS t
WHERE list_contains($workloads, coalesce(t.workload_key, 'args ' || t.args_flat))
ORDER BY list_position($workloads, coalesce(t.workload_key, 'args ' || t.args_flat)), t.tuner, t.task_name;
