-- 0011: how busy the machine was. A live capture measures the CPU time other processes
-- used while it timed (hotdb/capture/profile.py, OthersCpu): a capture beside a busy
-- process is slower by what it shared, which no sample of it shows, and a comparison of
-- one capture a side cannot judge it (queries/_compare_items.sql).
ALTER TABLE runs ADD COLUMN others_cpu_pct DOUBLE;

COMMENT ON COLUMN runs.others_cpu_pct IS 'live capture: the CPU time other processes used while it timed, in % of all CPUs; NULL for an ingested file or where /proc/stat is missing';
