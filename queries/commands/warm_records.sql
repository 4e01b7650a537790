-- The best measured MetaSchedule records hotdb holds for some workloads on one target,
-- from any model, run or tune: the records a tune starts from (its warm start). A
-- workload is known by the structural hash of its function, so a record tuned for
-- ResNet-34 serves the same convolution in ResNet-18. The same trace stored twice (a work
-- folder ingested again after a later round) counts once, at its best time.
--
-- @param hashes  structural hashes of the workloads (a list of text)
-- @param target  the target, in hotdb's normal form
-- @param per_workload  the most records per workload
-- @returns structural_hash, raw_line, mean_s
WITH measured AS (
    SELECT t.structural_hash, r.raw_line, list_avg(r.costs_s) AS mean_s,
           json_extract(r.raw_line, '$[1][0]')::VARCHAR AS trace
    FROM tuning_records AS r
    JOIN tasks AS t ON t.source_id = r.source_id AND t.task_index = r.task_index
    WHERE t.tuner = 'meta_schedule' AND list_contains($hashes, t.structural_hash)
      AND r.error_no = 0 AND r.target = $target
),
traces AS (
    SELECT structural_hash, min(mean_s) AS mean_s, arg_min(raw_line, mean_s) AS raw_line
    FROM measured
    GROUP BY structural_hash, trace
)
SELECT structural_hash, raw_line, mean_s
FROM traces
QUALIFY row_number() OVER (PARTITION BY structural_hash ORDER BY mean_s, raw_line) <= $per_workload
ORDER BY structural_hash, mean_s, raw_line;
