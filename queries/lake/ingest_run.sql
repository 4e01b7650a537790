-- The run an ingest made (no row: an ingest of IR, tasks or logs): its folder's name.
--
-- @param ingest  the ingest
-- @returns label
SELECT label FROM runs WHERE ingest_id = $ingest
