-- 0013: how long a live capture took, compile to last sample. A tune whose baseline was
-- profiled before it started knows no profile's time until its first re-profile, and
-- that re-profile must end by --budget's deadline: the baseline's own seconds are the
-- estimate it keeps time for (hotdb/ops/tune.py).
ALTER TABLE runs ADD COLUMN capture_s DOUBLE;

COMMENT ON COLUMN runs.capture_s IS 'live capture: its wall seconds, compiling the model to its last timed sample; NULL for an ingested file';
