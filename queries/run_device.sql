-- The device a run was measured on, by the name commands filter on (--device): the
-- tracker key of a live capture over RPC (runs.device_key: every device lent under one
-- key is taken to be alike), else 'local' (hotdb's own machine; an ingested file, which
-- does not say, counts with them). Runs of different devices are different builds:
-- compare's gate refuses to judge across them, and their noise is not pooled. The one
-- statement of what a run's device is.
--
-- @param device_key  runs.device_key
CREATE OR REPLACE MACRO run_device(device_key) AS coalesce(device_key, 'local');
