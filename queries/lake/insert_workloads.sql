-- Imported workloads (the Arrow table _frame, copy_shared.sql) the context lacks.
INSERT INTO workloads BY NAME
SELECT * FROM _frame WHERE workload_key NOT IN (SELECT workload_key FROM workloads)
