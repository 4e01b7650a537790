-- 0012: a MetaSchedule workload's line, kept as it is. `export --to metaschedule` writes
-- the stored records of the selected tasks as a database JSONDatabase loads: a record
-- names its workload by its line number in database_workload.json, whose line (the
-- structural hash and the IRModule, base64) hotdb kept nowhere before. Tasks of other
-- formats leave it NULL: their text is in task_args.
ALTER TABLE tasks ADD COLUMN raw_line VARCHAR;

COMMENT ON COLUMN tasks.raw_line IS 'MetaSchedule database: the workload''s line of database_workload.json, exactly as in the source; NULL for other tasks';
