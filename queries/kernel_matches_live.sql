-- The matching ladder, computed live: one row per kernel of a run, the workload it
-- computes, how that was decided and how sure it is (docs/design.md, "Matching ladder").
-- Every ingest stores its result for the runs of the model it touched in
-- kernel_match_results (read through `kernel_matches`); query this view with a run_id
-- filter to see the ladder decide again. The first rule that applies wins:
--
--   name            a task of the model has the kernel's symbol as its name (same build)
--   workload        the kernel's input shapes (all argument shapes, packed layouts unpacked)
--                   single out one workload of the IR or tasks
--   shape           one candidate has the kernel's op family and logical output shape
--   call_count      several candidates, but only one is called in the IR as often as the
--                   kernel is called in the run, and no other kernel of the group is
--   numbering+flops several kernels and workloads with equal call counts, paired in two
--                   independent ways that agree: kernel numbering against IR order, and
--                   time per call against FLOPs
--   numbering       only the numbering pairing is available
--   flops           only the time/FLOPs pairing is available
--   ambiguous       candidates remain, or the two pairings disagree: none is chosen
--   unmatched       no candidate: the op is not tunable, or nothing has its shape
--
-- The numbering direction is learned per run from kernels already matched by shape or
-- call count: TVM <= 0.9 numbers the kernels of one base name opposite to execution
-- order, and nothing is assumed when the anchors are missing or disagree.
--
-- @column run_id         the run
-- @column func_name      kernel symbol
-- @column kernel_family  anchor op family read from the symbol
-- @column calls          kernel calls per inference
-- @column time_us        time of all calls per inference, in microseconds
-- @column workload_key   the workload the kernel computes; NULL when ambiguous or unmatched
-- @column method         ladder rule that decided (see above)
-- @column confidence     how sure the match is, 0..1: name and workload 1.0, shape 0.95 (0.7 when call counts disagree with the IR), call_count 0.9, numbering+flops 0.9, numbering 0.75, flops 0.6; NULL when nothing was chosen
-- @column candidates     number of candidate workloads: those of the kernel's op family and shapes, and a
--                        task of the kernel's name's
-- @column candidate_keys the candidate workloads
-- @column reason         for unmatched and ambiguous kernels, why
CREATE OR REPLACE VIEW kernel_matches_live AS
-- Tunable as the run's tuner sees it: AutoTVM and auto_scheduler tune the op families of
-- family_compat; MetaSchedule makes a task of every PrimFunc a Relax IR calls (pooling,
-- softmax, norms too), except reshapes, which the VM lowers to views that no kernel runs.
WITH relax_kernels AS (
    SELECT DISTINCT ri.run_id, kernel_symbol(c.primfunc) AS symbol
    FROM _run_ir AS ri JOIN ir_calls AS c USING (source_id)
    WHERE c.primfunc IS NOT NULL
),
k AS (
    SELECT k.*, (k.kernel_family IN (SELECT kernel_family FROM family_compat)
                 OR (k.kernel_family IS DISTINCT FROM 'reshape' AND EXISTS (
                     SELECT 1 FROM relax_kernels AS p
                     WHERE p.run_id = k.run_id AND p.symbol = kernel_symbol(k.func_name)))) AS tunable
    FROM run_kernels AS k
),
cand AS (
    SELECT c.*, k.calls AS kernel_calls
    FROM _kernel_candidates AS c JOIN k USING (run_id, func_name)
),
per_kernel AS (
    SELECT run_id, func_name, count(*) AS candidates, bool_or(by_inputs) AS by_inputs,
           list(workload_key ORDER BY first_ir_index NULLS LAST, workload_key) AS candidate_keys,
           CASE WHEN count(*) = 1 THEN any_value(workload_key) END AS only_key
    FROM cand GROUP BY run_id, func_name
),
-- Rule 1: same symbol as a task of the model (prefixes tvmgen_<mod>_ / vm_mod_ ignored).
by_name AS (
    SELECT k.run_id, k.func_name, any_value(coalesce(t.workload_key, 'args ' || t.args_flat)) AS workload_key
    FROM k
    JOIN runs AS r USING (run_id)
    JOIN model_tasks AS t ON t.model_id = r.model_id
     AND kernel_symbol(t.task_name)
       = kernel_symbol(k.func_name)
    GROUP BY ALL
),
-- Classes: kernels of one run with the same family, output shape and call count.
classed AS (
    SELECT k.*,
           count(*) OVER cls AS class_kernels,
           min(func_base) OVER cls = max(func_base) OVER cls AS class_one_base,
           row_number() OVER (PARTITION BY run_id, kernel_family, out_shape_logical, calls
                              ORDER BY time_per_call_us, func_name) AS time_rank
    FROM k
    WINDOW cls AS (PARTITION BY run_id, kernel_family, out_shape_logical, calls)
),
-- Candidates called in the IR exactly as often as the kernel runs.
same_calls AS (
    SELECT c.*,
           count(*) OVER w AS class_workloads,
           count(DISTINCT flops) OVER w AS distinct_flops,
           row_number() OVER (PARTITION BY run_id, func_name ORDER BY first_ir_index) AS ir_rank,
           row_number() OVER (PARTITION BY run_id, func_name ORDER BY flops, workload_key) AS flops_rank
    FROM cand AS c
    WHERE c.ir_calls = c.kernel_calls
    WINDOW w AS (PARTITION BY run_id, func_name)
),
by_calls AS (
    SELECT s.run_id, s.func_name, s.workload_key
    FROM same_calls AS s JOIN classed AS k USING (run_id, func_name)
    JOIN per_kernel AS p USING (run_id, func_name)
    WHERE s.class_workloads = 1 AND k.class_kernels = 1 AND p.candidates > 1
),
anchors AS (
    SELECT k.run_id, k.func_base, k.func_number, c.first_ir_index
    FROM k
    JOIN per_kernel AS p USING (run_id, func_name)
    LEFT JOIN by_calls AS b USING (run_id, func_name)
    JOIN cand AS c ON c.run_id = k.run_id AND c.func_name = k.func_name
                  AND c.workload_key = coalesce(p.only_key, b.workload_key)
    WHERE c.first_ir_index IS NOT NULL
),
direction AS (
    SELECT a.run_id,
           CASE
               WHEN count(*) FILTER (a.first_ir_index > b.first_ir_index) > 0
                AND count(*) FILTER (a.first_ir_index < b.first_ir_index) = 0 THEN -1
               WHEN count(*) FILTER (a.first_ir_index < b.first_ir_index) > 0
                AND count(*) FILTER (a.first_ir_index > b.first_ir_index) = 0 THEN 1
           END AS numbering_sign
    FROM anchors AS a
    JOIN anchors AS b ON a.run_id = b.run_id AND a.func_base = b.func_base AND a.func_number < b.func_number
    GROUP BY a.run_id
),
ranked AS (
    SELECT k.run_id, k.func_name, k.class_kernels, k.class_one_base, k.time_rank, d.numbering_sign,
           row_number() OVER (PARTITION BY k.run_id, k.kernel_family, k.out_shape_logical, k.calls
                              ORDER BY k.func_number * d.numbering_sign, k.func_name) AS number_rank
    FROM classed AS k
    LEFT JOIN direction AS d USING (run_id)
),
paired AS (
    SELECT r.run_id, r.func_name,
           any_value(s.workload_key) FILTER (r.numbering_sign IS NOT NULL AND r.class_one_base
                                             AND s.ir_rank = r.number_rank) AS by_numbering,
           any_value(s.workload_key) FILTER (s.distinct_flops = s.class_workloads
                                             AND s.flops_rank = r.time_rank) AS by_flops
    FROM ranked AS r
    JOIN same_calls AS s USING (run_id, func_name)
    WHERE s.class_workloads = r.class_kernels AND r.class_kernels > 1
    GROUP BY r.run_id, r.func_name
),
calls_agree AS (
    -- For a shape-unique workload: do the kernels mapped to it run as often as the IR calls it?
    SELECT p.run_id, p.only_key, sum(k.calls) = any_value(c.ir_calls) AS agree
    FROM per_kernel AS p
    JOIN k USING (run_id, func_name)
    JOIN cand AS c ON c.run_id = p.run_id AND c.func_name = p.func_name AND c.workload_key = p.only_key
    WHERE p.only_key IS NOT NULL
    GROUP BY p.run_id, p.only_key
),
decided AS (
    SELECT k.run_id, k.func_name, k.kernel_family, k.calls, k.time_us, k.tunable,
           -- the named task's workload is a candidate too: one count however the kernel matched
           coalesce(p.candidates, 0) + CASE WHEN n.workload_key IS NOT NULL
                AND NOT list_contains(coalesce(p.candidate_keys, []), n.workload_key) THEN 1 ELSE 0 END AS candidates,
           CASE WHEN n.workload_key IS NOT NULL AND NOT list_contains(coalesce(p.candidate_keys, []), n.workload_key)
                THEN list_append(coalesce(p.candidate_keys, []), n.workload_key) ELSE p.candidate_keys END AS candidate_keys,
           CASE
               WHEN n.func_name IS NOT NULL AND p.by_inputs AND p.only_key IS DISTINCT FROM n.workload_key
                    AND n.workload_key IS NOT NULL THEN 'ambiguous'
               WHEN n.func_name IS NOT NULL THEN 'name'
               WHEN p.by_inputs AND p.only_key IS NOT NULL THEN 'workload'
               WHEN p.candidates IS NULL THEN 'unmatched'
               WHEN p.candidates = 1 THEN 'shape'
               WHEN b.workload_key IS NOT NULL THEN 'call_count'
               WHEN x.by_numbering IS NOT NULL AND x.by_flops IS NOT NULL THEN
                   CASE WHEN x.by_numbering = x.by_flops THEN 'numbering+flops' ELSE 'ambiguous' END
               WHEN x.by_numbering IS NOT NULL THEN 'numbering'
               WHEN x.by_flops IS NOT NULL THEN 'flops'
               ELSE 'ambiguous'
           END AS method,
           coalesce(n.workload_key, p.only_key, b.workload_key,
                    CASE WHEN x.by_flops IS NULL OR x.by_numbering IS NULL OR x.by_numbering = x.by_flops
                         THEN coalesce(x.by_numbering, x.by_flops) END) AS chosen_key,
           (SELECT agree FROM calls_agree AS a WHERE a.run_id = k.run_id AND a.only_key = p.only_key) AS shape_calls_agree,
           x.by_numbering, x.by_flops,
           n.func_name IS NOT NULL AND p.by_inputs AND n.workload_key IS NOT NULL
               AND p.only_key IS DISTINCT FROM n.workload_key AS name_conflict
    FROM k
    LEFT JOIN per_kernel AS p USING (run_id, func_name)
    LEFT JOIN by_name AS n USING (run_id, func_name)
    LEFT JOIN by_calls AS b USING (run_id, func_name)
    LEFT JOIN paired AS x USING (run_id, func_name)
)
SELECT
    run_id,
    func_name,
    kernel_family,
    calls,
    time_us,
    CASE WHEN method IN ('ambiguous', 'unmatched') THEN NULL ELSE chosen_key END AS workload_key,
    method,
    CASE method
        WHEN 'name' THEN 1.0
        WHEN 'workload' THEN 1.0
        WHEN 'shape' THEN CASE WHEN coalesce(shape_calls_agree, false) THEN 0.95 ELSE 0.7 END
        WHEN 'call_count' THEN 0.9
        WHEN 'numbering+flops' THEN 0.9
        WHEN 'numbering' THEN 0.75
        WHEN 'flops' THEN 0.6
    END::DOUBLE AS confidence,
    candidates,
    candidate_keys,
    CASE
        WHEN method = 'unmatched' AND NOT tunable THEN 'not tunable: ' || kernel_family
        WHEN method = 'unmatched' THEN 'no IR call or task with this op family and output shape'
        WHEN method = 'ambiguous' AND name_conflict
            THEN 'the task of the same name computes another workload than the input shapes show'
        WHEN method = 'ambiguous' AND by_numbering IS NOT NULL AND by_flops IS NOT NULL
            THEN 'kernel numbering and time/FLOPs ratios point to different workloads'
        WHEN method = 'ambiguous' THEN 'several workloads share this op family, output shape and call count'
    END AS reason
FROM decided;
