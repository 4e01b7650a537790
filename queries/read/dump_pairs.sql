-- The debug dump reader: each begin (B) and end (E) event with the event of its node that
-- came before it. An end closes the node's latest begin (a begin that follows a begin
-- replaces it, as the trace's Python reader did); dump_bad_event.sql checks the rest.
CREATE TEMP TABLE dump_pairs AS
SELECT event, name, ph, ts, lag(ph) OVER node AS prev_ph, lag(ts) OVER node AS prev_ts
FROM (SELECT rowid AS event, name, ph, TRY_CAST(ts AS DOUBLE) AS ts FROM dump_events WHERE ph IN ('B', 'E'))
WINDOW node AS (PARTITION BY name ORDER BY event)
