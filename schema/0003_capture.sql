-- 0003: what a live capture knows about its run.

ALTER TABLE runs ADD COLUMN host VARCHAR;
ALTER TABLE runs ADD COLUMN cpu_model VARCHAR;
ALTER TABLE runs ADD COLUMN cpu_cores INTEGER;
ALTER TABLE runs ADD COLUMN threads INTEGER;
ALTER TABLE runs ADD COLUMN os VARCHAR;
ALTER TABLE runs ADD COLUMN python_version VARCHAR;
ALTER TABLE runs ADD COLUMN hotdb_version VARCHAR;
ALTER TABLE runs ADD COLUMN ir_sha256 VARCHAR;           -- hash of the model's IR (TVMScript text)
ALTER TABLE runs ADD COLUMN timing_method VARCHAR;
ALTER TABLE runs ADD COLUMN end_to_end_us DOUBLE[];      -- whole-model samples, one per repeat
ALTER TABLE runs ADD COLUMN baseline_run_id INTEGER;     -- the run this one was tuned from
