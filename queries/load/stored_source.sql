-- A file of this content the model already has: its path (no row: the content is new).
--
-- @param model_id  the model
-- @param sha256  the file's content hash
-- @returns path
SELECT path FROM sources WHERE model_id = $model_id AND content_sha256 = $sha256
