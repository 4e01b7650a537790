-- 0009: how far a task's tuning got, as MetaSchedule prints it (hotdb/ingest/tasks/ms_tuning_log.py).
--
-- The task scheduler's table gives per task its FLOP, weight, trials, best latency and
-- whether the task is done; a per-task log's trial lines give trials and best latency
-- (each trial is a tuning_records row too). Other tasks leave the columns NULL. The view
-- model_task_tuning joins the state to the model's tasks by name.
ALTER TABLE tasks ADD COLUMN flop BIGINT;
ALTER TABLE tasks ADD COLUMN trials INTEGER;
ALTER TABLE tasks ADD COLUMN best_latency_us DOUBLE;
ALTER TABLE tasks ADD COLUMN terminated BOOLEAN;

COMMENT ON COLUMN tasks.flop IS 'floating-point operations of one call, as MetaSchedule counted them (its table''s FLOP), if a tuning log says';
COMMENT ON COLUMN tasks.trials IS 'trials MetaSchedule measured for the task (its table''s Trials, or the last Trial #n of its log), if a tuning log says';
COMMENT ON COLUMN tasks.best_latency_us IS 'the fastest trial''s latency in microseconds (its table''s Latency (us)); NULL when no trial ran, or none ran without error';
COMMENT ON COLUMN tasks.terminated IS 'MetaSchedule finished tuning the task (its table''s Done / Terminated is Y, or the log says it finished); NULL when the log does not say';
