-- The large-file report reader, scan 2: one example of each distinct signature.
-- Placeholders: {signature} as in report_calls.sql, {values} the signature columns (each
-- any_value(...)), {scan} the report.
SELECT {signature} AS signature, {values}
FROM {scan} GROUP BY ALL
