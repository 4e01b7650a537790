-- The debug dump reader: the first event that is wrong: one without name, phase or time
-- ('fields'), an end of a node not begun ('unbegun'), an end before its begin ('backwards').
--
-- @returns event, problem, name
SELECT event, problem, name FROM (
    SELECT rowid AS event, 'fields' AS problem, name FROM dump_events
    WHERE name IS NULL OR ph IS NULL OR TRY_CAST(ts AS DOUBLE) IS NULL
    UNION ALL
    SELECT event, CASE WHEN prev_ph IS DISTINCT FROM 'B' THEN 'unbegun' ELSE 'backwards' END, name FROM dump_pairs
    WHERE ph = 'E' AND (prev_ph IS DISTINCT FROM 'B' OR ts < prev_ts)
)
ORDER BY event LIMIT 1
