-- The matches an ingest re-decided, as a Parquet file of its folder: its own runs', and
-- when it brought IR or tasks, every run of its model; returns the rows written.
--
-- @param ingest  the ingest
-- @param path  the file
COPY (SELECT * FROM kernel_match_results
      WHERE run_id IN (SELECT run_id FROM runs WHERE ingest_id = $ingest)
         OR (EXISTS (SELECT 1 FROM sources WHERE ingest_id = $ingest AND role <> 'profile')
             AND run_id IN (SELECT run_id FROM runs
                            WHERE model_id = (SELECT model_id FROM ingests WHERE ingest_id = $ingest))))
TO $path (FORMAT parquet)
