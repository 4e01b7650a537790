-- Store a debug dump's nodes (the view _node_file, in node order) as node_calls rows,
-- each pointing to its signature (file_node_signatures.sql). hotdb/store/loader.py:
-- _insert_node_file.
--
-- @param run_id  the run
INSERT INTO node_calls BY NAME
SELECT $run_id AS run_id, node_index, signature_id, time_us, calls, reported_share_pct, start_us, device, line_no
FROM _node_file
