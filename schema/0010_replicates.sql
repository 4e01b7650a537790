-- 0010: replicates. `hotdb profile --replicates N` captures a build N times, each in a
-- process of its own, and stores N runs that name their group: the spread between them
-- is the noise a comparison is judged against (queries/item_noise.sql).
ALTER TABLE runs ADD COLUMN replicate_of VARCHAR;

COMMENT ON COLUMN runs.replicate_of IS 'the replicate group this run is one capture of (hotdb profile --replicates: the label given with --run, else MODEL-N); NULL for a run of its own';
