-- Each run's time per item (_node_items): the sum of its nodes, and the samples each of
-- them has (0 when one node has none: a printed time, or a derived node such as a
-- capture's runtime overhead). The first item of every run is the whole run,
-- '(end to end)': its own end-to-end median where a live capture stored it, else the sum
-- of its nodes.
--
-- @param item_kind  what an item is: 'workload' | 'kernel' | 'op'
-- @column run_id         the run
-- @column item           the item, or '(end to end)'
-- @column time_us        the item's time per inference, in microseconds
-- @column samples        samples every node of the item has (0: one has none)
-- @column kernel         whether the item holds a kernel (the whole run counts as one)
-- @column task_name      a task of the item, if any
-- @column task_args      that task's arguments as JSON
CREATE OR REPLACE MACRO _run_items(item_kind) AS TABLE
SELECT run_id, item, sum(time_us) AS time_us, min(sample_count) AS samples, bool_or(is_kernel) AS kernel,
       any_value(task_name) AS task_name, any_value(task_args) AS task_args
FROM _node_items(item_kind)
GROUP BY run_id, item
UNION ALL
SELECT r.run_id, '(end to end)', coalesce(list_median(r.end_to_end_us), sum(n.time_us)),
       coalesce(len(r.end_to_end_us), min(n.sample_count)), true, NULL, NULL
FROM runs AS r JOIN run_nodes AS n USING (run_id)
GROUP BY r.run_id, r.end_to_end_us;
