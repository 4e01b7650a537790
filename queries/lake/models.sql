-- Lake `models`: every writer of a model writes its row; keep the first written.
-- Placeholder: {files}, a view of the table's files (the Parquet reader's, by name).
SELECT * FROM {files}
QUALIFY row_number() OVER (PARTITION BY model_id ORDER BY created_at) = 1
