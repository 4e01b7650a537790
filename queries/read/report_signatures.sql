-- The large-file report reader, scan 2: one example of each distinct signature, in order
-- of its first call, read from the report only up to the last signature's first call (a
-- profile repeats its kernels, so this scan stops near the file's start).
-- Placeholders: {signature} as in report_calls.sql, {values} the signature columns (each
-- any_value(...)), {scan} the report.
WITH firsts AS (
    SELECT signature, min(rowid) AS first_row FROM calls GROUP BY signature
)
SELECT f.first_row, d.*
FROM (SELECT {signature} AS signature, {values}
      FROM (SELECT * FROM {scan} LIMIT (SELECT max(first_row) + 1 FROM firsts)) GROUP BY ALL) AS d
JOIN firsts AS f USING (signature)
ORDER BY f.first_row
