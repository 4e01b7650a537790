-- One row per kernel of a run: the workload it computes, how that was decided and how
-- sure it is, as the matching ladder (`kernel_matches_live`, docs/design.md "Matching ladder")
-- decided at the last ingest touching the run's model. Rules, best first: name,
-- workload, shape, call_count, numbering+flops, numbering, flops; else ambiguous or
-- unmatched.
--
-- @column run_id         the run
-- @column func_name      kernel symbol
-- @column kernel_family  anchor op family read from the symbol
-- @column calls          kernel calls per inference
-- @column time_us        time of all calls per inference, in microseconds
-- @column workload_key   the workload the kernel computes; NULL when ambiguous or unmatched
-- @column method         ladder rule that decided (see kernel_matches_live)
-- @column confidence     how sure the match is, 0..1: name and workload 1.0, shape 0.95 (0.7 when call counts disagree with the IR), call_count 0.9, numbering+flops 0.9, numbering 0.75, flops 0.6; NULL when nothing was chosen
-- @column candidates     number of candidate workloads (kernel_matches_live says which)
-- @column candidate_keys the candidate workloads
-- @column reason         for unmatched and ambiguous kernels, why
CREATE OR REPLACE VIEW kernel_matches AS
SELECT run_id, func_name, kernel_family, calls, time_us, workload_key, method, confidence, candidates,
       candidate_keys, reason
FROM kernel_match_results;
