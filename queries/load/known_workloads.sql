-- Which of these workloads are stored already (a workload is stored once, by key).
--
-- @param keys  workload keys (a list)
-- @returns workload_key
SELECT workload_key FROM workloads WHERE workload_key IN (SELECT unnest($keys))
