-- One row per (run, task): what the tuner weights the task by (its static weight: calls
-- per inference as the tuner counted them at extraction) beside what the run measured
-- (kernel calls and share of the run's time). Tuners split trials by the first; the
-- second says where the time is. runtime_weight is the share as a fraction, ready to
-- pass as task weights.
--
-- @column run_id         the run
-- @column model_id       its model
-- @column tuner          autotvm, auto_scheduler or meta_schedule
-- @column task_name      the task
-- @column workload_key   the task's workload (canonical, or 'args <dims>')
-- @column static_weight  calls per inference the tuner counted; NULL when the tuner does not say (AutoTVM)
-- @column measured_calls kernel calls per inference in the run
-- @column time_us        time of those calls per inference, in microseconds
-- @column share_pct      time_us as a percentage of the run's total time
-- @column runtime_weight share_pct / 100
CREATE OR REPLACE VIEW task_weights AS
SELECT m.run_id, r.model_id, t.tuner, t.task_name, m.workload_key, t.weight AS static_weight,
       sum(m.calls) AS measured_calls, sum(m.time_us) AS time_us,
       100.0 * sum(m.time_us) / any_value(x.total_time_us) AS share_pct,
       sum(m.time_us) / any_value(x.total_time_us) AS runtime_weight
FROM node_matches AS m
JOIN runs AS r USING (run_id)
JOIN run_totals AS x USING (run_id)
JOIN model_tasks AS t ON t.model_id = r.model_id AND t.task_name = m.task_name AND t.tuner = m.tuner
GROUP BY m.run_id, r.model_id, t.tuner, t.task_name, m.workload_key, t.weight;
