-- Store the calls of one run as node_calls rows: each call of the relation _calls
-- (node_index, signature, time_us, calls, device, line_no, call_share_pct, call_start_us:
-- a registered Arrow table, or file_calls.sql's view) points to its signature (temp table
-- _signature_ids: signature_id, with the share and start a report prints once per
-- signature). hotdb/store/loader.py: insert_nodes.
--
-- @param run_id  the run
INSERT INTO node_calls BY NAME
SELECT $run_id AS run_id, c.node_index, s.signature_id, c.time_us, c.calls,
       coalesce(c.call_share_pct, s.reported_share_pct) AS reported_share_pct,
       coalesce(c.call_start_us, s.start_us) AS start_us, c.device, c.line_no
FROM _calls AS c
JOIN _signature_ids AS s ON s.signature_id = c.signature
