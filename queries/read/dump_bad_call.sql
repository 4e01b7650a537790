-- The debug dump reader: the first run of a node the graph does not have, or of a kernel
-- with an input that is no node.
--
-- @returns name, known, missing
SELECT name, known, missing FROM dump_calls
WHERE NOT known OR missing IS NOT NULL
ORDER BY event LIMIT 1
