-- Store one parsed profile's nodes as node_calls rows, in file order: each node's per-call
-- columns (the registered Arrow table _node_call_columns) and the signature it shares
-- (_signatures, node_signatures_of.sql). A debug table prints a share and a start per
-- row: they stay the call's. hotdb/store/loader.py: _insert_node_rows.
--
-- @param run_id  the run
INSERT INTO node_calls BY NAME
SELECT $run_id AS run_id, c.node_index, s.signature_id, c.time_us, c.calls, c.reported_share_pct, c.start_us,
       c.device, c.line_no
FROM _node_call_columns AS c
JOIN (SELECT signature_id, unnest(members) AS seq FROM _signatures) AS s USING (seq)
ORDER BY c.seq
