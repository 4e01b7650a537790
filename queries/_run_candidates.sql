-- One row per (run, workload) that a kernel of the run may compute: the distinct
-- workloads of the run's IR (with how often and where the IR calls them) or, for a
-- model without IR, the workloads of its tuning tasks. Calls and tasks known only by
-- their argument shapes (Relax call_tir, auto_scheduler keys, MetaSchedule databases)
-- are always candidates, keyed 'args <dims>'.
--
-- @column run_id            the run
-- @column workload_key      canonical workload, or 'args <dims>' for a task known by argument shapes only
-- @column op_family         op family of the workload; NULL for 'args' candidates
-- @column out_shape_logical logical output shape of the workload
-- @column data_shape        logical data shape of the workload
-- @column weight_shape      logical weight shape of the workload
-- @column args_flat         the task's argument dims, comma-joined (auto_scheduler keys)
-- @column ir_calls          calls of this workload in the IR; NULL when it comes from tasks only
-- @column first_ir_index    IR position of its first call; NULL when from tasks only
-- @column flops             floating-point operations of one call; NULL when unknown
-- @column evidence          'ir' or 'tasks': where the candidate comes from
CREATE OR REPLACE VIEW _run_candidates AS
WITH from_ir AS (
    SELECT ri.run_id,
           coalesce(c.workload_key, 'args ' || c.args_flat) AS workload_key,
           any_value(c.args_flat) AS args_flat,
           any_value(c.op_family) AS op_family,
           any_value(c.out_shape_logical) AS out_shape_logical,
           count(*) AS ir_calls,
           min(c.call_index) AS first_ir_index
    FROM _run_ir AS ri
    JOIN ir_calls AS c USING (source_id)
    WHERE c.compiler IS NULL
      AND (c.workload_key IS NOT NULL
           OR (c.args_flat IS NOT NULL AND c.op_family IN (SELECT workload_family FROM family_compat)))
    GROUP BY ALL
),
from_tasks AS (
    SELECT DISTINCT r.run_id, coalesce(t.workload_key, 'args ' || t.args_flat) AS workload_key, t.args_flat
    FROM runs AS r
    JOIN model_tasks AS t USING (model_id)
    WHERE (t.workload_key IS NOT NULL AND r.run_id NOT IN (SELECT run_id FROM _run_ir))
       OR (t.workload_key IS NULL AND t.args_flat IS NOT NULL)
)
SELECT i.run_id, i.workload_key, coalesce(w.op_family, i.op_family) AS op_family,
       coalesce(w.out_shape, i.out_shape_logical) AS out_shape_logical,
       w.data_shape, w.weight_shape, i.args_flat, i.ir_calls, i.first_ir_index, w.flops, 'ir' AS evidence
FROM from_ir AS i LEFT JOIN workloads AS w USING (workload_key)
UNION ALL
SELECT t.run_id, t.workload_key, w.op_family, w.out_shape, w.data_shape, w.weight_shape,
       t.args_flat, NULL, NULL, w.flops, 'tasks'
FROM from_tasks AS t LEFT JOIN workloads AS w USING (workload_key)
WHERE NOT EXISTS (SELECT 1 FROM from_ir AS i WHERE i.run_id = t.run_id AND i.workload_key = t.workload_key);
