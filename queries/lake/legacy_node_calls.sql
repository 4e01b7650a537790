-- Lake `node_calls` from the `nodes.parquet` files of lakes written before schema 6: the
-- per-call columns of each node, pointing to the node's own signature.
-- Reads `files`: those files, as the Parquet reader gives them (by name).
--
-- @returns *
SELECT run_id, node_index, node_index::INTEGER AS signature_id, time_us, calls, reported_share_pct, start_us, device,
       line_no
FROM files
