-- Targets in one normal form: compact JSON, keys sorted, arrays as lists, as MetaSchedule
-- writes them (hotdb/workload/targets.py). Before, a live capture stored
-- json.dumps(export(), default=str), whose arrays were tuple texts ("keys": "(\"cpu\",)"),
-- and logs kept TVM's text form (llvm -keys=cpu -mcpu=...), so a tuning record's target
-- never equalled its run's. hotdb_canonical_target is that Python function, registered by
-- hotdb for its migrations only.
UPDATE runs SET target = hotdb_canonical_target(target) WHERE target IS NOT NULL;
UPDATE tasks SET target = hotdb_canonical_target(target) WHERE target IS NOT NULL;
UPDATE tuning_records SET target = hotdb_canonical_target(target) WHERE target IS NOT NULL;
