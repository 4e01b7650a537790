-- Nodes, normalised: a profile of a million calls has a few hundred distinct kernel
-- signatures (symbol, shapes, layouts and what hotdb derived from them). Each is stored
-- once per run in node_signatures; node_calls keeps what varies per call. The public
-- relation `nodes` (queries/nodes.sql) joins them back, with the columns the table had.

CREATE TABLE node_signatures (
    run_id               BIGINT NOT NULL,
    signature_id         INTEGER NOT NULL,   -- 0, 1, ... within the run, in order of first call
    node_name            VARCHAR NOT NULL,
    output_index         INTEGER NOT NULL,
    func_name            VARCHAR NOT NULL,
    out_shape            INTEGER[],
    out_dtype            VARCHAR,
    input_shapes         INTEGER[][],
    input_dtypes         VARCHAR[],
    num_inputs           INTEGER,
    num_outputs          INTEGER,
    kernel_family        VARCHAR,
    func_base            VARCHAR,
    func_number          INTEGER,
    out_shape_logical    INTEGER[],
    workload_key         VARCHAR,
    data_shape_logical   INTEGER[],
    weight_shape_logical INTEGER[],
    args_flat            VARCHAR,
    kernel_hash          VARCHAR,
    layouts              VARCHAR,
    is_kernel            BOOLEAN NOT NULL DEFAULT true
);

CREATE TABLE node_calls (
    run_id             BIGINT NOT NULL,
    node_index         INTEGER NOT NULL,
    signature_id       INTEGER NOT NULL,
    time_us            DOUBLE NOT NULL,
    calls              INTEGER NOT NULL,
    reported_share_pct DOUBLE,
    start_us           DOUBLE,
    device             VARCHAR,
    line_no            INTEGER
);

-- the rows stored so far, split as the loader of schema 5 split an ingest's (a
-- copy, not a reference: a migration must mean the same when that file changes)
CREATE TEMP TABLE migrated_signatures AS
SELECT (row_number() OVER (PARTITION BY run_id ORDER BY first_node_index, first_row) - 1)::INTEGER AS signature_id, *
FROM (
    SELECT run_id, node_name, output_index, func_name, out_shape, out_dtype, input_shapes, input_dtypes, num_inputs,
           num_outputs, kernel_family, func_base, func_number, out_shape_logical, workload_key, data_shape_logical,
           weight_shape_logical, args_flat, kernel_hash, layouts, coalesce(is_kernel, true) AS is_kernel,
           min(node_index) AS first_node_index, min(rowid) AS first_row, list(rowid) AS members
    FROM nodes
    GROUP BY ALL
);

INSERT INTO node_signatures BY NAME SELECT * EXCLUDE (first_node_index, first_row, members) FROM migrated_signatures;

INSERT INTO node_calls BY NAME
SELECT n.run_id, n.node_index, s.signature_id, n.time_us, n.calls, n.reported_share_pct, n.start_us, n.device, n.line_no
FROM nodes AS n
JOIN (SELECT signature_id, unnest(members) AS member FROM migrated_signatures) AS s ON n.rowid = s.member;

DROP TABLE migrated_signatures;
DROP TABLE nodes;
