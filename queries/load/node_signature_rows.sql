-- Store one parsed profile's signatures (the temporary table _signatures,
-- node_signatures_of.sql) as node_signatures rows. hotdb/store/loader.py: _insert_node_rows.
--
-- @param run_id  the run
INSERT INTO node_signatures BY NAME
SELECT $run_id AS run_id, * EXCLUDE (first_seq, members) FROM _signatures ORDER BY signature_id
