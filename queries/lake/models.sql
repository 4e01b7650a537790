-- Lake `models`: every writer of a model writes its row; keep the first written.
-- Reads `files`: the rows of the commits a reader saw (or a folder-layout lake's files), by name.
--
-- @returns *
SELECT * FROM files
QUALIFY row_number() OVER (PARTITION BY model_id ORDER BY created_at) = 1
