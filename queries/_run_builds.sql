-- The build each run is a capture of, for the noise between runs (item_noise.sql): runs
-- of one model, IR (a live capture's hash of its IR text, else the ingested IR source's
-- content), target and device (run_device.sql), untuned, replicates included (their spread is the build's noise
-- too); a tuned run is alone (each tuning round is another build). NULL: a run whose IR is
-- unknown has no history.
--
-- @column run_id    the run
-- @column model_id  its model
-- @column ir        its IR: a live capture's hash of its IR text, else the IR source's content hash; NULL when unknown
-- @column build     its build, as text; NULL when unknown
CREATE OR REPLACE VIEW _run_builds AS
SELECT run_id, model_id, ir,
       CASE WHEN ir IS NOT NULL THEN
           concat_ws(' ', model_id, ir, target_text(target), 'on', run_device(device_key),
                     CASE WHEN baseline_run_id IS NOT NULL THEN 'tuned run ' || run_id END)
       END AS build
FROM (
    SELECT r.run_id, r.model_id, r.target, r.device_key, r.baseline_run_id,
           coalesce(r.ir_sha256, s.content_sha256) AS ir
    FROM runs AS r
    LEFT JOIN _run_ir AS i USING (run_id)
    LEFT JOIN sources AS s ON s.source_id = i.source_id
);
