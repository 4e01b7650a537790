-- 0002: what exact matching (ladder rules 1 and 2) needs.
--
-- Kernels whose input shapes are known (profiler reports, debug dumps, graph JSON) carry
-- their logical data and weight shapes; every argument shape list is also kept flat
-- (`args_flat`: all dims of inputs then outputs, comma-joined), because auto_scheduler
-- workload keys of 2021 flattened their tensor shapes and can only be compared so.

ALTER TABLE nodes ADD COLUMN data_shape_logical INTEGER[];
ALTER TABLE nodes ADD COLUMN weight_shape_logical INTEGER[];
ALTER TABLE nodes ADD COLUMN args_flat VARCHAR;
ALTER TABLE nodes ADD COLUMN kernel_hash VARCHAR;
ALTER TABLE nodes ADD COLUMN layouts VARCHAR;          -- JSON object of layout attributes
ALTER TABLE nodes ADD COLUMN is_kernel BOOLEAN DEFAULT true;  -- false for VM builtins

ALTER TABLE tasks ADD COLUMN args_flat VARCHAR;
ALTER TABLE tasks ADD COLUMN weight INTEGER;           -- calls per inference, when the tuner says
ALTER TABLE tasks ADD COLUMN structural_hash VARCHAR;

-- BYOC partitions (Compiler="cutlass", ...) are compiled outside TVM: never tunable by it.
ALTER TABLE ir_calls ADD COLUMN compiler VARCHAR;
ALTER TABLE ir_calls ADD COLUMN primfunc VARCHAR;      -- Relax call_tir callee / fused fn name
ALTER TABLE ir_calls ADD COLUMN args_flat VARCHAR;     -- argument dims of a PrimFunc call

-- Graph JSON nodes (lib.get_graph_json()): structure with input shapes, no times. They
-- lend their input shapes to the nodes of runs of the same model (joined by node name).
CREATE TABLE graph_nodes (
    source_id            INTEGER NOT NULL,
    node_index           INTEGER NOT NULL,
    node_name            VARCHAR NOT NULL,
    func_name            VARCHAR NOT NULL,
    input_shapes         INTEGER[][],
    input_dtypes         VARCHAR[],
    out_shape            INTEGER[],
    out_dtype            VARCHAR,
    kernel_hash          VARCHAR,
    layouts              VARCHAR,
    data_shape_logical   INTEGER[],
    weight_shape_logical INTEGER[],
    args_flat            VARCHAR
);
