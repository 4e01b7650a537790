-- Whether two runs are of the same build: the same IR (a live capture's hash of its IR
-- text; for ingested files, the same IR source content), the same target and the same
-- device (run_device.sql), for the warning a comparison of different builds carries.
-- NULL where a run does not say.
--
-- @param a  one run's id
-- @param b  the other's
-- @returns same_ir, same_target, target_a, target_b, same_device, device_a, device_b
WITH ir AS (
    SELECT r.run_id, b.ir, r.target, run_device(r.device_key) AS device
    FROM runs AS r JOIN _run_builds AS b USING (run_id)
    WHERE r.run_id IN ($a, $b)
)
SELECT a.ir = b.ir AS same_ir, a.target = b.target AS same_target,
       target_text(a.target) AS target_a, target_text(b.target) AS target_b,
       a.device = b.device AS same_device, a.device AS device_a, b.device AS device_b
FROM ir AS a, ir AS b
WHERE a.run_id = $a AND b.run_id = $b
