-- The runs an ingest made (no row: an ingest of IR, tasks or logs): its commit claims their labels.
--
-- @param ingest  the ingest
-- @returns label
SELECT label FROM runs WHERE ingest_id = $ingest
