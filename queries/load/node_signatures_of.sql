-- The distinct kernel signatures of one parsed profile (the registered Arrow table
-- _node_signature_columns: a node's signature columns, schema/0005, and `seq`, its place
-- in the file), numbered 0, 1, ... in order of first node, each with the nodes that share
-- it: the temporary table _signatures that node_rows.sql stores.
-- hotdb/store/loader.py: _insert_node_rows.
CREATE OR REPLACE TEMP TABLE _signatures AS
SELECT (row_number() OVER (ORDER BY first_seq) - 1)::INTEGER AS signature_id, *
FROM (
    SELECT COLUMNS(* EXCLUDE (seq)), min(seq) AS first_seq, list(seq) AS members
    FROM _node_signature_columns
    GROUP BY ALL
)
