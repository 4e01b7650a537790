-- The runs a name stands for in a comparison: the runs of a replicate group of that name
-- (hotdb profile --replicates), in order of capture; none when it names no group.
--
-- @param name  the group's name
-- @returns run_id, label
SELECT run_id, label FROM runs WHERE replicate_of = $name ORDER BY created_at, run_id
