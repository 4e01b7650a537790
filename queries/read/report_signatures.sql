-- The large-file report reader, scan 2: one example of each distinct signature, read
-- from the calls before $rows only (the last signature's first call is the row before it:
-- a profile repeats its kernels, so this scan stops near the file's start), in order of
-- each signature's first call (_first_calls: signature, first_row).
-- Placeholders: {signature} as in report_calls.sql, {values} the signature columns (each
-- any_value(...)), {scan} the report.
--
-- @param rows  how many calls, from the first, hold every signature
SELECT f.first_row, d.*
FROM (SELECT {signature} AS signature, {values}
      FROM (SELECT * FROM {scan} LIMIT $rows) GROUP BY ALL) AS d
JOIN _first_calls AS f USING (signature)
ORDER BY f.first_row
