-- A lake table read in place: the rows of the commits a reader saw (hotdb/store/lake.py),
-- or of a folder-layout lake's files. Tables several commits may hold the same row of
-- have a file of their own here, keeping one row per key.
-- Reads `files`: those rows, by name.
--
-- @returns *
SELECT * FROM files
