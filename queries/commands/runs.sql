-- Every run with its model, time and how much of it is matched (on one device, where one
-- is named). `busy`: captured while other processes used more than a quiet machine's share
-- of the CPUs (_quiet_run), `others_cpu_pct` how much: its times measure the machine too.
--
-- @param device  only runs measured on this device (run_device.sql; NULL: every run)
-- @returns run, model, created_at, nodes, kernels, total_time_us, matched_pct, with_task_pct,
--          ambiguous_pct, not_tunable_pct, busy, others_cpu_pct, device, target, profile_variant,
--          tags, device_key, device_name, rpc_server
SELECT r.label AS run, m.name AS model, r.created_at, t.nodes, t.kernels, t.total_time_us,
       t.matched_pct, t.with_task_pct, t.ambiguous_pct, t.not_tunable_pct,
       NOT _quiet_run(r.others_cpu_pct) AS busy, r.others_cpu_pct,
       r.device, target_text(r.target) AS target, r.profile_variant, r.tags,
       run_device(r.device_key) AS device_key, r.device_name, r.rpc_server
FROM runs AS r
JOIN models AS m USING (model_id)
JOIN run_totals AS t USING (run_id)
WHERE $device IS NULL OR run_device(r.device_key) = $device
ORDER BY r.created_at, r.run_id;
