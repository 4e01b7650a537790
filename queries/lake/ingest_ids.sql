-- Every ingest of the context: an ingest's own is the one that was not there before it.
--
-- @returns ingest_id
SELECT ingest_id FROM ingests
