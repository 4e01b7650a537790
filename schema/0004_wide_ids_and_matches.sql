-- Identifiers become BIGINT, so that a lake (many writers, no shared sequence) can give
-- every ingest its own random range of ids; and kernel matches are stored per run.

-- Columns under a PRIMARY KEY cannot change type in place: rebuild those four tables.
CREATE TABLE models_wide (
    model_id    BIGINT PRIMARY KEY,
    name        VARCHAR NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL
);
INSERT INTO models_wide SELECT model_id, name, created_at FROM models;
DROP TABLE models;
ALTER TABLE models_wide RENAME TO models;

CREATE TABLE ingests_wide (
    ingest_id     BIGINT PRIMARY KEY,
    model_id      BIGINT NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL,
    hotdb_version VARCHAR NOT NULL
);
INSERT INTO ingests_wide SELECT ingest_id, model_id, started_at, hotdb_version FROM ingests;
DROP TABLE ingests;
ALTER TABLE ingests_wide RENAME TO ingests;

CREATE TABLE sources_wide (
    source_id      BIGINT PRIMARY KEY,
    ingest_id      BIGINT NOT NULL,
    model_id       BIGINT NOT NULL,
    path           VARCHAR NOT NULL,
    format         VARCHAR NOT NULL,
    role           VARCHAR NOT NULL,
    content_sha256 VARCHAR NOT NULL,
    size_bytes     BIGINT NOT NULL,
    row_count      BIGINT NOT NULL,
    warnings       VARCHAR[],
    UNIQUE (model_id, content_sha256)
);
INSERT INTO sources_wide SELECT source_id, ingest_id, model_id, path, format, role, content_sha256, size_bytes,
                                row_count, warnings FROM sources;
DROP TABLE sources;
ALTER TABLE sources_wide RENAME TO sources;

CREATE TABLE runs_wide (
    run_id            BIGINT PRIMARY KEY,
    model_id          BIGINT NOT NULL,
    ingest_id         BIGINT NOT NULL,
    source_id         BIGINT,
    label             VARCHAR NOT NULL UNIQUE,
    created_at        TIMESTAMPTZ NOT NULL,
    target            VARCHAR,
    device            VARCHAR,
    tvm_version       VARCHAR,
    profile_variant   VARCHAR,
    reported_total_us DOUBLE,
    tags              MAP(VARCHAR, VARCHAR),
    host              VARCHAR,
    cpu_model         VARCHAR,
    cpu_cores         INTEGER,
    threads           INTEGER,
    os                VARCHAR,
    python_version    VARCHAR,
    hotdb_version     VARCHAR,
    ir_sha256         VARCHAR,
    timing_method     VARCHAR,
    end_to_end_us     DOUBLE[],
    baseline_run_id   BIGINT
);
INSERT INTO runs_wide BY NAME SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_wide RENAME TO runs;

ALTER TABLE nodes ALTER COLUMN run_id TYPE BIGINT;
ALTER TABLE node_samples ALTER COLUMN run_id TYPE BIGINT;
ALTER TABLE ir_calls ALTER COLUMN source_id TYPE BIGINT;
ALTER TABLE tasks ALTER COLUMN source_id TYPE BIGINT;
ALTER TABLE tuning_records ALTER COLUMN source_id TYPE BIGINT;
ALTER TABLE graph_nodes ALTER COLUMN source_id TYPE BIGINT;

-- The matching ladder (queries/match_ladder.sql, task_choice.sql) as of the last ingest
-- that touched the run's model: one row per (run, kernel). Computed in SQL at ingest, so
-- that coverage over millions of nodes is a join and a sum, not a re-match of every run.
CREATE TABLE kernel_match_results (
    run_id         BIGINT NOT NULL,
    func_name      VARCHAR NOT NULL,
    kernel_family  VARCHAR,
    calls          BIGINT,
    time_us        DOUBLE,
    workload_key   VARCHAR,
    method         VARCHAR NOT NULL,
    confidence     DOUBLE,
    candidates     BIGINT,
    candidate_keys VARCHAR[],
    reason         VARCHAR,
    tuner          VARCHAR,
    task_name      VARCHAR,
    task_args      VARCHAR,
    task_names     VARCHAR[],
    computed_at    TIMESTAMPTZ NOT NULL
);
