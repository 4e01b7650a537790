-- The content hashes of an ingest's files: each is claimed before the ingest lands.
--
-- @param ingest  the ingest
-- @returns content_sha256
SELECT content_sha256 FROM sources WHERE ingest_id = $ingest
