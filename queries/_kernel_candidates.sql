-- One row per (kernel, candidate workload). A kernel whose input shapes are known
-- (ladder rule 2) is compared on all of them: its flattened argument dims against a
-- task's, or its logical data, weight and output shapes against a workload's. Only when
-- that finds nothing, or the shapes are unknown (printed debug table), is it compared on
-- op family and logical output shape alone (rule 3). A canonical workload that agrees
-- with the input shapes makes an 'args' key of the same kernel redundant: it is dropped.
--
-- @column run_id         the run
-- @column func_name      kernel symbol
-- @column workload_key   a workload the kernel may compute
-- @column by_inputs      true when the candidate agrees with the kernel's input shapes (rule 2)
-- @column ir_calls       calls of that workload in the IR (NULL from tasks only)
-- @column first_ir_index IR position of the workload's first call
-- @column flops          floating-point operations of one call of the workload
CREATE OR REPLACE VIEW _kernel_candidates AS
WITH pairs AS (
    SELECT k.run_id, k.func_name, c.workload_key, c.ir_calls, c.first_ir_index, c.flops,
           (k.args_flat IS NOT NULL AND c.args_flat = k.args_flat)
           OR (k.data_shape_logical IS NOT NULL AND c.data_shape = k.data_shape_logical
               AND c.weight_shape = k.weight_shape_logical
               -- a kernel known by its inputs only (a log line with a graph JSON's shapes)
               AND coalesce(c.out_shape_logical = k.out_shape_logical, f.family_fits, false)) AS by_inputs,
           coalesce(f.family_fits, false) AND c.out_shape_logical = k.out_shape_logical AS by_output
    FROM run_kernels AS k
    JOIN _run_candidates AS c ON c.run_id = k.run_id
    LEFT JOIN (SELECT kernel_family, workload_family, true AS family_fits FROM family_compat) AS f
           ON f.kernel_family = k.kernel_family AND f.workload_family = c.op_family
    WHERE k.is_kernel
)
SELECT run_id, func_name, workload_key, by_inputs, ir_calls, first_ir_index, flops
FROM pairs
WHERE (by_inputs OR by_output)
QUALIFY (by_inputs OR NOT bool_or(by_inputs) OVER (PARTITION BY run_id, func_name))
    AND NOT (workload_key LIKE 'args %'
             AND bool_or(by_inputs AND workload_key NOT LIKE 'args %') OVER (PARTITION BY run_id, func_name));
