-- 0014: where a live capture ran. A capture on a device lent by TVM's RPC tracker
-- (hotdb profile --rpc HOST:PORT --key KEY) records the tracker, the key the device was
-- lent under (the kind of device: every device of a key is taken to be alike), the
-- server that measured, and the device's own name where it says one. Runs of different
-- devices are different builds (queries/_run_device.sql, queries/_run_builds.sql).
ALTER TABLE runs ADD COLUMN device_key VARCHAR;
ALTER TABLE runs ADD COLUMN rpc_tracker VARCHAR;
ALTER TABLE runs ADD COLUMN rpc_server VARCHAR;
ALTER TABLE runs ADD COLUMN device_name VARCHAR;

COMMENT ON COLUMN runs.device_key IS 'live capture over RPC: the tracker key the device was lent under (rasp4, jetson); NULL for a capture on hotdb''s own machine or an ingested file';
COMMENT ON COLUMN runs.rpc_tracker IS 'live capture over RPC: the tracker, HOST:PORT';
COMMENT ON COLUMN runs.rpc_server IS 'live capture over RPC: the address of the server (the device) that measured, as the tracker gave it';
COMMENT ON COLUMN runs.device_name IS 'live capture over RPC: the device''s name where it says one (a GPU does; a CPU does not)';
