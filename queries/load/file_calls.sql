-- A large profile's calls as node_calls.sql reads them (the view _calls): the calls the
-- large-file reader wrote (the view _call_file, hotdb/ingest/profile/report/streamed_csv.py), each pointing to
-- its signature by its number there (temp table _signature_numbers); a share or start per
-- call such reports do not print.
CREATE OR REPLACE TEMP VIEW _calls AS
SELECT f.* EXCLUDE (signature), n.signature, NULL::DOUBLE AS call_share_pct, NULL::DOUBLE AS call_start_us
FROM _call_file AS f
JOIN _signature_numbers AS n ON n.signature_number = f.signature
