-- The large-file report reader (hotdb/ingest/profile/report/streamed_csv.py), scan 1: every call's per-call
-- columns, checked, in file order (a call's rowid is its node index).
-- Placeholders (the reader fills them from the report's header, quoted): {signature}, an
-- expression hashing the signature columns; {duration}, {count}, {device}: the columns
-- (or NULL); {scan}: the report read by DuckDB (its path the parameter $path of the
-- statement {scan} is part of, not of this file).
CREATE TABLE calls AS
SELECT {signature} AS signature,
       TRY_CAST(replace({duration}, ',', '') AS DOUBLE) AS time_us,
       {duration} IS NULL OR TRY_CAST(replace({duration}, ',', '') AS DOUBLE) IS NULL AS bad_time,
       coalesce(TRY_CAST(replace(nullif({count}, ''), ',', '') AS DOUBLE), 1) AS calls_real,
       nullif({count}, '') IS NOT NULL AND TRY_CAST(replace({count}, ',', '') AS DOUBLE) IS NULL AS bad_count,
       nullif({device}, '') AS device
FROM {scan}
