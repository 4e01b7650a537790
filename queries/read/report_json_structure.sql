-- The large-file Report JSON reader: what each report object read (report_json_text.sql)
-- holds beside its calls' values: the structure of its calls, as JSON text (a list of one
-- object naming each metric's kind and type; NULL without a "calls" member), and its
-- device_metrics as JSON text. A file of one object, as TVM writes, needs no more
-- (json_group_structure, for several, took 3x as long as json_structure).
--
-- @returns structure, device_metrics
SELECT json_structure(json->'calls') AS structure, json->>'device_metrics' AS device_metrics
FROM report
