-- The debug dump reader: the nodes begun and never ended (a truncated trace), and the one
-- begun first.
--
-- @returns open, first
SELECT count(*) AS open, arg_min(name, opened) AS first FROM (
    SELECT name, arg_max(ph, event) AS last_ph, min(event) FILTER (WHERE ph = 'B' AND event > last_end) AS opened
    FROM (SELECT *, coalesce(max(event) FILTER (WHERE ph = 'E') OVER (PARTITION BY name), -1) AS last_end
          FROM dump_pairs)
    GROUP BY name
)
WHERE last_ph = 'B'
