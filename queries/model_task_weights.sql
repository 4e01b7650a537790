-- One row per (model, task) from the model's latest run: task_weights where a model has
-- been profiled several times, so that a model's weights are current.
--
-- @column model_id       the model
-- @column run_id         its latest run
-- @column tuner          autotvm, auto_scheduler or meta_schedule
-- @column task_name      the task
-- @column workload_key   the task's workload
-- @column static_weight  calls per inference the tuner counted
-- @column measured_calls kernel calls per inference in the run
-- @column time_us        time per inference, in microseconds
-- @column share_pct      share of the run's time
-- @column runtime_weight share_pct / 100
CREATE OR REPLACE VIEW model_task_weights AS
SELECT w.model_id, w.run_id, w.tuner, w.task_name, w.workload_key, w.static_weight, w.measured_calls,
       w.time_us, w.share_pct, w.runtime_weight
FROM task_weights AS w
WHERE w.run_id = (SELECT arg_max(r.run_id, r.created_at) FROM runs AS r WHERE r.model_id = w.model_id);
