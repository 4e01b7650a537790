-- Each node of a run as the item a comparison pairs it by: its workload (a kernel
-- renamed by a new TVM is still the same item), its kernel symbol, or its op family;
-- unmatched kernels are items of their own symbol. The one statement of what an item is.
--
-- @param item_kind  what an item is: 'workload' | 'kernel' | 'op'
-- @column run_id         the run
-- @column node_index     the node
-- @column time_us        the node's time per inference, in microseconds
-- @column sample_count   its repeated samples (0: none)
-- @column is_kernel      whether it is a kernel (not a VM builtin or the runtime's overhead)
-- @column item           the item it belongs to
-- @column task_name      the task its kernel matched, if any
-- @column task_args      that task's arguments as JSON
CREATE OR REPLACE MACRO _node_items(item_kind) AS TABLE
SELECT n.run_id, n.node_index, n.time_us, n.sample_count, n.is_kernel,
       CASE WHEN item_kind = 'op' THEN 'op ' || n.kernel_family
            WHEN item_kind = 'kernel' OR m.workload_key IS NULL THEN 'kernel ' || n.func_name
            ELSE m.workload_key END AS item,
       m.task_name, m.task_args
FROM run_nodes AS n
JOIN node_matches AS m USING (run_id, node_index);
