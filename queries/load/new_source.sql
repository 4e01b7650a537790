-- One stored file of an ingest.
--
-- @param ingest_id  the ingest
-- @param model_id  the model
-- @param path  the file's label (its path, or what a pasted block was called)
-- @param format  the format it was read as
-- @param role  profile, ir, tasks, ...
-- @param sha256  its content hash (a duplicate is found by it)
-- @param size_bytes  its size
-- @param row_count  the rows read from it
-- @param warnings  what its reader warned about
-- @returns source_id
INSERT INTO sources (source_id, ingest_id, model_id, path, format, role, content_sha256,
                     size_bytes, row_count, warnings)
VALUES (nextval('source_id_seq'), $ingest_id, $model_id, $path, $format, $role, $sha256,
        $size_bytes, $row_count, $warnings)
RETURNING source_id
