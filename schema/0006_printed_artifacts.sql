-- 0006: what printed artifacts carry.
--
-- A task printed with its tensors only (a user's own loop over the extracted tasks)
-- keeps its logical operands; its workload then comes from the IR call that has them
-- (queries/model_tasks.sql). Tasks of every other form carry them too.
ALTER TABLE tasks ADD COLUMN data_shape_logical INTEGER[];
ALTER TABLE tasks ADD COLUMN weight_shape_logical INTEGER[];

-- A workload may have a dimension that is dynamic in the IR (`?`, stored as -1): its
-- FLOPs are then unknown.
ALTER TABLE workloads ALTER COLUMN flops DROP NOT NULL;
