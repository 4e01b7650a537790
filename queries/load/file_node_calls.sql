-- A debug dump's nodes (the view _node_file) as node_call_rows.sql reads parsed nodes:
-- each node's per-call columns and `seq`. hotdb/store/loader.py: _insert_node_file.
CREATE OR REPLACE TEMP VIEW _node_call_columns AS
SELECT node_index, time_us, calls, reported_share_pct, start_us, device, line_no, node_index::BIGINT AS seq
FROM _node_file
