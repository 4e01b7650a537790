-- One row per run that has IR evidence: which IR source serves it. An IR file ingested
-- together with the profile (same ingest) describes the same build and wins; otherwise
-- the model's most recently ingested IR is used.
--
-- @column run_id    the run
-- @column source_id the IR source whose calls serve as evidence for the run
CREATE OR REPLACE VIEW _run_ir AS
SELECT r.run_id, s.source_id
FROM runs AS r
JOIN sources AS s ON s.model_id = r.model_id AND s.role = 'ir'
QUALIFY row_number() OVER (
    PARTITION BY r.run_id ORDER BY (s.ingest_id = r.ingest_id) DESC, s.source_id DESC) = 1;
