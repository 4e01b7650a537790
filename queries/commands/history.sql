-- One item's time across runs, oldest first, with the run's metadata.
--
-- @param model  the model's name (NULL: every model)
-- @param task  the task's name (NULL: any)
-- @param workload  the workload's key (NULL: any)
-- @param device  only runs measured on this device (run_device.sql; NULL: any)
-- @returns run, model, created_at, task_name, workload, time_us, calls, share_pct, tvm_version,
--          target, device, tags, device_key
SELECT r.label AS run, m.name AS model, r.created_at, t.task_name, t.workload_key AS workload,
       t.time_us, t.calls, t.share_pct, r.tvm_version, target_text(r.target) AS target, r.device, r.tags,
       run_device(r.device_key) AS device_key
FROM task_times AS t
JOIN runs AS r USING (run_id)
JOIN models AS m USING (model_id)
WHERE ($model IS NULL OR m.name = $model)
  AND ($task IS NULL OR t.task_name = $task)
  AND ($workload IS NULL OR t.workload_key = $workload)
  AND ($device IS NULL OR run_device(r.device_key) = $device)
ORDER BY r.created_at, r.run_id, t.rank;
