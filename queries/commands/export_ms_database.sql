-- The stored MetaSchedule records of some workloads, as the lines of a JSON database:
-- each workload's line of database_workload.json (one per structural hash: one structure,
-- one workload) and each of its records without the workload index it had in its own
-- file (the caller numbers the workloads anew). A record stored twice (a work folder
-- ingested again after a later round) is one line. Records of every target are kept:
-- JSONDatabase picks a target's own when it applies them.
--
-- @param model_ids  the models whose records are exported (a list of ids)
-- @param hashes  structural hashes of the selected tasks' workloads (a list of text)
-- @returns structural_hash, workload_line, record_tail
WITH ms_tasks AS (
    SELECT t.source_id, t.task_index, t.structural_hash, t.raw_line
    FROM tasks AS t
    JOIN sources AS s ON s.source_id = t.source_id
    WHERE t.tuner = 'meta_schedule' AND list_contains($model_ids, s.model_id)
      AND list_contains($hashes, t.structural_hash)
),
workloads AS (
    SELECT structural_hash, min(raw_line) AS workload_line
    FROM ms_tasks
    WHERE raw_line IS NOT NULL
    GROUP BY structural_hash
),
records AS (
    -- a record line is `[index, [trace, run_secs, target, args_info]]`: what follows the
    -- first comma is the record itself
    SELECT DISTINCT t.structural_hash, substr(r.raw_line, strpos(r.raw_line, ',') + 1) AS record_tail
    FROM tuning_records AS r
    JOIN ms_tasks AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
)
SELECT w.structural_hash, w.workload_line, r.record_tail
FROM workloads AS w
JOIN records AS r ON r.structural_hash = w.structural_hash
ORDER BY w.structural_hash, r.record_tail;
