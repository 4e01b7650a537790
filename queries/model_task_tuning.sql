-- One row per MetaSchedule task of a model, by name, with how far its tuning got. A
-- model's tasks are the PrimFuncs its Relax IR calls (MetaSchedule names each task after
-- its PrimFunc), the MetaSchedule tasks of its task lists and captures (a database's
-- workloads where a named task has their structural hash; unnamed ones cannot be joined
-- by name and are left out), and every task a tuning log names. What a source says of a
-- task: MetaSchedule's printed table gives its FLOP, weight, trials, best latency and
-- done (format ms-tuning-log); a per-task log or a database gives its trials as tuning
-- records, counted here, the best being the fastest without error. Where several sources
-- say something, the latest wins: trials and best latency from the latest source giving
-- trials, FLOP, weight and done from the latest giving each.
--
-- @column model_id            the model
-- @column task_name           the task: MetaSchedule's name, the PrimFunc's
-- @column ir_calls            calls of the PrimFunc in the model's IR; NULL when no IR of the model calls it
-- @column weight              calls per inference: the tuning log's Weight, else the task list's, else ir_calls
-- @column tuned               true when a trial of the task ran without error (it has a best latency)
-- @column trials              trials MetaSchedule measured; NULL when no tuning log or database has the task
-- @column terminated          MetaSchedule finished tuning the task (Done / Terminated); NULL when no log says
-- @column best_latency_us     the fastest trial, in microseconds per call
-- @column flop                floating-point operations of one call, as MetaSchedule counted them
-- @column speed_gflops        flop / best_latency_us, in GFLOP/s
-- @column weighted_latency_us best_latency_us times weight: the task's time per inference once tuned
-- @column weighted_share_pct  its share of the model's tuned tasks' weighted latency
-- @column tuning_source_id    the source the trials and best latency were read from
CREATE OR REPLACE VIEW model_task_tuning AS
WITH ir AS (
    SELECT s.model_id, c.primfunc AS task_name, count(*) AS ir_calls
    FROM ir_calls AS c
    JOIN sources AS s USING (source_id)
    WHERE c.primfunc IS NOT NULL AND c.compiler IS NULL
    GROUP BY ALL
),
listed AS (
    SELECT model_id, task_name, max(weight) AS weight
    FROM _task_rows
    WHERE tuner = 'meta_schedule' AND task_name IS DISTINCT FROM structural_hash
    GROUP BY ALL
),
logged AS (  -- trials as records: a per-task log's trial lines, a database's measurements
    SELECT source_id, task_index, count(*) AS trials,
           min(list_avg(costs_s)) FILTER (WHERE error_no = 0) * 1e6 AS best_latency_us
    FROM tuning_records
    GROUP BY ALL
),
said AS (  -- what each source says of a task; a table's own columns before its records
    SELECT t.model_id, t.task_name, t.source_id, t.flop, t.weight, t.terminated,
           coalesce(t.trials, g.trials) AS trials,
           CASE WHEN t.trials IS NOT NULL THEN t.best_latency_us ELSE g.best_latency_us END AS best_latency_us
    FROM _task_rows AS t
    LEFT JOIN logged AS g USING (source_id, task_index)
    WHERE t.tuner = 'meta_schedule' AND t.task_name IS DISTINCT FROM t.structural_hash
),
tuning AS (
    SELECT model_id, task_name,
           arg_max(trials, source_id) FILTER (WHERE trials IS NOT NULL) AS trials,
           arg_max_null(best_latency_us, source_id) FILTER (WHERE trials IS NOT NULL) AS best_latency_us,
           max(source_id) FILTER (WHERE trials IS NOT NULL) AS tuning_source_id,
           arg_max(flop, source_id) FILTER (WHERE flop IS NOT NULL) AS flop,
           arg_max(weight, source_id) FILTER (WHERE weight IS NOT NULL) AS weight,
           arg_max(terminated, source_id) FILTER (WHERE terminated IS NOT NULL) AS terminated
    FROM said
    WHERE trials IS NOT NULL OR terminated IS NOT NULL OR flop IS NOT NULL
    GROUP BY ALL
),
names AS (
    SELECT model_id, task_name FROM ir
    UNION
    SELECT model_id, task_name FROM listed
    UNION
    SELECT model_id, task_name FROM tuning
),
joined AS (
    SELECT n.model_id, n.task_name, i.ir_calls,
           coalesce(u.weight, l.weight, i.ir_calls) AS weight,
           u.best_latency_us IS NOT NULL AS tuned,
           u.trials, u.terminated, u.best_latency_us, u.flop, u.tuning_source_id
    FROM names AS n
    LEFT JOIN ir AS i USING (model_id, task_name)
    LEFT JOIN listed AS l USING (model_id, task_name)
    LEFT JOIN tuning AS u USING (model_id, task_name)
)
SELECT model_id, task_name, ir_calls, weight, tuned, trials, terminated, best_latency_us, flop,
       CASE WHEN best_latency_us > 0 THEN flop / best_latency_us / 1e3 END AS speed_gflops,
       best_latency_us * weight AS weighted_latency_us,
       100.0 * best_latency_us * weight
           / nullif(sum(best_latency_us * weight) OVER (PARTITION BY model_id), 0) AS weighted_share_pct,
       tuning_source_id
FROM joined;
