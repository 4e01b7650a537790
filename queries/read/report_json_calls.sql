-- The large-file Report JSON reader: one row per call, parsed once by its structure
-- (MATERIALIZED: an unnest of from_json's call itself parses the text again per chunk of
-- rows).
--
-- @param structure  the calls' structure (report_json_structure.sql)
CREATE TEMP TABLE report_calls AS
WITH parsed AS MATERIALIZED (SELECT from_json(json->'calls', $structure) AS calls FROM report)
SELECT unnest(calls) AS call FROM parsed
