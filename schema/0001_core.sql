-- 0001: models, runs, nodes, IR calls, tasks and tuning records of single builds.
-- Ids come from sequences; every row names the source file it came from, so that an
-- ingest is one transaction that either adds all its rows or none.

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
);

-- Settings of the database itself (e.g. the hash of the views last created).
CREATE TABLE hotdb_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR
);

CREATE SEQUENCE model_id_seq START 1;
CREATE SEQUENCE ingest_id_seq START 1;
CREATE SEQUENCE source_id_seq START 1;
CREATE SEQUENCE run_id_seq START 1;

CREATE TABLE models (
    model_id    INTEGER PRIMARY KEY,
    name        VARCHAR NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL
);

-- One `hotdb ingest` (or capture) command: the files given together describe one build.
CREATE TABLE ingests (
    ingest_id     INTEGER PRIMARY KEY,
    model_id      INTEGER NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL,
    hotdb_version VARCHAR NOT NULL
);

CREATE TABLE sources (
    source_id      INTEGER PRIMARY KEY,
    ingest_id      INTEGER NOT NULL,
    model_id       INTEGER NOT NULL,
    path           VARCHAR NOT NULL,
    format         VARCHAR NOT NULL,
    role           VARCHAR NOT NULL,       -- hotdb/rows/records.py: ROLES
    content_sha256 VARCHAR NOT NULL,
    size_bytes     BIGINT NOT NULL,
    row_count      BIGINT NOT NULL,
    warnings       VARCHAR[],
    UNIQUE (model_id, content_sha256)
);

CREATE TABLE runs (
    run_id            INTEGER PRIMARY KEY,
    model_id          INTEGER NOT NULL,
    ingest_id         INTEGER NOT NULL,
    source_id         INTEGER,
    label             VARCHAR NOT NULL UNIQUE,
    created_at        TIMESTAMPTZ NOT NULL,
    target            VARCHAR,
    device            VARCHAR,
    tvm_version       VARCHAR,
    profile_variant   VARCHAR,
    reported_total_us DOUBLE,
    tags              MAP(VARCHAR, VARCHAR)
);

CREATE TABLE nodes (
    run_id             INTEGER NOT NULL,
    node_index         INTEGER NOT NULL,   -- row order in the profile (execution order where known)
    node_name          VARCHAR NOT NULL,
    output_index       INTEGER NOT NULL,   -- multi-output nodes print one row per output
    func_name          VARCHAR NOT NULL,   -- the kernel symbol (debug table column "Ops")
    time_us            DOUBLE NOT NULL,    -- per inference, summed over `calls`
    calls              INTEGER NOT NULL,
    reported_share_pct DOUBLE,
    out_shape          INTEGER[],          -- as printed: packed layouts stay packed
    out_dtype          VARCHAR,
    input_shapes       INTEGER[][],
    input_dtypes       VARCHAR[],
    num_inputs         INTEGER,
    num_outputs        INTEGER,
    start_us           DOUBLE,
    device             VARCHAR,
    line_no            INTEGER,
    kernel_family      VARCHAR,            -- anchor op family read from func_name
    func_base          VARCHAR,            -- func_name without prefixes and numbering
    func_number        INTEGER,            -- numbering suffix of func_name (0 when none)
    out_shape_logical  INTEGER[],          -- out_shape with packed layouts unpacked
    workload_key       VARCHAR             -- set when input shapes make the workload certain
);

CREATE TABLE node_samples (
    run_id       INTEGER NOT NULL,
    node_index   INTEGER NOT NULL,
    sample_index INTEGER NOT NULL,
    time_us      DOUBLE NOT NULL
);

CREATE TABLE workloads (
    workload_key VARCHAR PRIMARY KEY,
    op_family    VARCHAR NOT NULL,
    dtype        VARCHAR NOT NULL,
    data_shape   INTEGER[] NOT NULL,
    weight_shape INTEGER[] NOT NULL,
    out_shape    INTEGER[] NOT NULL,
    attrs        JSON NOT NULL,
    flops        DOUBLE NOT NULL
);

CREATE TABLE ir_calls (
    source_id         INTEGER NOT NULL,
    call_index        INTEGER NOT NULL,    -- IR order (evaluation order within a function)
    function_name     VARCHAR NOT NULL,
    result_var        VARCHAR,
    op_name           VARCHAR NOT NULL,
    attrs             JSON NOT NULL,
    arg_kinds         VARCHAR[] NOT NULL,
    arg_shapes        INTEGER[][] NOT NULL,
    arg_dtypes        VARCHAR[] NOT NULL,
    result_shapes     INTEGER[][] NOT NULL,
    result_dtypes     VARCHAR[] NOT NULL,
    line_no           INTEGER NOT NULL,
    op_family         VARCHAR,
    workload_key      VARCHAR,
    out_shape_logical INTEGER[]
);

CREATE TABLE tasks (
    source_id         INTEGER NOT NULL,
    task_index        INTEGER NOT NULL,    -- order within its source
    tuner             VARCHAR NOT NULL,    -- autotvm | auto_scheduler | meta_schedule
    task_name         VARCHAR NOT NULL,
    task_args         VARCHAR NOT NULL,    -- JSON, as AutoTVM serialises args
    task_kwargs       VARCHAR,
    target            VARCHAR,
    line_no           INTEGER NOT NULL,
    op_family         VARCHAR,
    variant           VARCHAR,
    workload_key      VARCHAR,
    out_shape_logical INTEGER[]
);

CREATE TABLE tuning_records (
    source_id    INTEGER NOT NULL,
    line_no      INTEGER NOT NULL,
    task_index   INTEGER NOT NULL,         -- tasks.task_index of the same source
    config_index BIGINT,
    costs_s      DOUBLE[],
    error_no     INTEGER,
    all_cost_s   DOUBLE,
    timestamp    DOUBLE,
    target       VARCHAR,
    tvm_version  VARCHAR,
    raw_line     VARCHAR NOT NULL          -- the line exactly as in the source
);

-- Which workload families a kernel family may stand for. Relay has no depthwise op:
-- a kernel named nn_conv2d may compute a depthwise convolution.
CREATE TABLE family_compat (
    kernel_family   VARCHAR NOT NULL,
    workload_family VARCHAR NOT NULL
);
INSERT INTO family_compat VALUES
    ('conv1d', 'conv1d'), ('conv2d', 'conv2d'), ('conv2d', 'depthwise_conv2d'),
    ('depthwise_conv2d', 'depthwise_conv2d'), ('conv3d', 'conv3d'),
    ('conv1d_transpose', 'conv1d_transpose'), ('conv2d_transpose', 'conv2d_transpose'),
    ('conv3d_transpose', 'conv3d_transpose'), ('dense', 'dense'), ('dense', 'matmul'),
    ('matmul', 'dense'), ('matmul', 'matmul'), ('batch_matmul', 'batch_matmul');
