-- One row per (kernel, candidate workload): workloads whose op family the kernel's name
-- allows and whose logical output shape equals the kernel's. A kernel with input
-- shapes (ladder rule 2) has only its own workload as candidate.
--
-- @column run_id         the run
-- @column func_name      kernel symbol
-- @column workload_key   a workload the kernel may compute
-- @column ir_calls       calls of that workload in the IR (NULL from tasks only)
-- @column first_ir_index IR position of the workload's first call
-- @column flops          floating-point operations of one call of the workload
CREATE OR REPLACE VIEW kernel_candidates AS
SELECT k.run_id, k.func_name, c.workload_key, c.ir_calls, c.first_ir_index, c.flops
FROM run_kernels AS k
JOIN family_compat AS f ON f.kernel_family = k.kernel_family
JOIN run_candidates AS c
  ON c.run_id = k.run_id
 AND c.op_family = f.workload_family
 AND c.out_shape_logical = k.out_shape_logical
WHERE k.input_workload_key IS NULL OR c.workload_key = k.input_workload_key;
