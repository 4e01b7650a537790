-- The run a tune starts from: the model's latest run that no tune made (an untuned run),
-- for the target given (NULL: any target), of the IR given (NULL: any) and measured on the
-- device given (run_device.sql; NULL: any), how long its capture took (NULL for an
-- ingested profile), and whether the machine was quiet while it timed (_quiet_run: a tune
-- profiles a fresh baseline in place of a busy one).
--
-- @param model  the model's name
-- @param target  the canonical target (NULL: any target)
-- @param ir  the IR's hash, runs.ir_sha256 (NULL: any IR)
-- @param device  the device, as run_device names it (NULL: any)
-- @returns run_id, label, capture_s, quiet, others_cpu_pct
SELECT r.run_id, r.label, r.capture_s, _quiet_run(r.others_cpu_pct) AS quiet, r.others_cpu_pct
FROM runs AS r JOIN models AS m USING (model_id)
WHERE m.name = $model AND r.baseline_run_id IS NULL AND ($target IS NULL OR r.target = $target)
  AND ($ir IS NULL OR r.ir_sha256 = $ir) AND ($device IS NULL OR run_device(r.device_key) = $device)
ORDER BY r.created_at DESC, r.run_id DESC
LIMIT 1
