-- The content hashes of an ingest's files: its commit claims each.
--
-- @param ingest  the ingest
-- @returns content_sha256
SELECT content_sha256 FROM sources WHERE ingest_id = $ingest
