-- The matches some ingests re-decided: their own runs', and when one brought IR or tasks,
-- every run of its model. Readers keep each run's newest (kernel_match_results.sql).
--
-- @param ingests  the ingests (a list)
-- @returns *
SELECT * FROM kernel_match_results
WHERE run_id IN (SELECT run_id FROM runs WHERE ingest_id IN (SELECT unnest($ingests)))
   OR (EXISTS (SELECT 1 FROM sources WHERE ingest_id IN (SELECT unnest($ingests)) AND role <> 'profile')
       AND run_id IN (SELECT run_id FROM runs
                      WHERE model_id IN (SELECT model_id FROM ingests WHERE ingest_id IN (SELECT unnest($ingests)))))
