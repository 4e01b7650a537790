-- The large-file Report JSON reader: the structure of the calls of a file of several
-- report objects, merged over them (report_json_structure.sql gives each object's).
--
-- @returns structure
SELECT json_group_structure(json->'calls') AS structure FROM report
