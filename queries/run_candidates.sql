-- One row per (run, workload) that a kernel of the run may compute: the distinct
-- workloads of the run's IR (with how often and where the IR calls them) or, for a
-- model without IR, the workloads of its tuning tasks.
--
-- @column run_id            the run
-- @column workload_key      canonical workload
-- @column op_family         op family of the workload
-- @column out_shape_logical logical output shape of the workload
-- @column ir_calls          calls of this workload in the IR; NULL when it comes from tasks only
-- @column first_ir_index    IR position of its first call; NULL when from tasks only
-- @column flops             floating-point operations of one call
-- @column evidence          'ir' or 'tasks': where the candidate comes from
CREATE OR REPLACE VIEW run_candidates AS
WITH from_ir AS (
    SELECT ri.run_id, c.workload_key,
           any_value(c.op_family) AS op_family,
           any_value(c.out_shape_logical) AS out_shape_logical,
           count(*) AS ir_calls,
           min(c.call_index) AS first_ir_index
    FROM run_ir AS ri
    JOIN ir_calls AS c USING (source_id)
    WHERE c.workload_key IS NOT NULL
    GROUP BY ri.run_id, c.workload_key
),
from_tasks AS (
    SELECT DISTINCT r.run_id, t.workload_key, t.op_family, t.out_shape_logical
    FROM runs AS r
    JOIN model_tasks AS t USING (model_id)
    WHERE t.workload_key IS NOT NULL
      AND r.run_id NOT IN (SELECT run_id FROM run_ir)
)
SELECT i.run_id, i.workload_key, i.op_family, i.out_shape_logical, i.ir_calls, i.first_ir_index,
       w.flops, 'ir' AS evidence
FROM from_ir AS i JOIN workloads AS w USING (workload_key)
UNION ALL
SELECT t.run_id, t.workload_key, t.op_family, t.out_shape_logical, NULL, NULL,
       w.flops, 'tasks'
FROM from_tasks AS t JOIN workloads AS w USING (workload_key);
