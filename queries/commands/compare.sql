-- Run A against run B, item by item, with a significance test on the repeated samples.
-- Items are workloads (so a kernel renamed by a new TVM is still the same item), or with
-- $by = 'kernel' kernel symbols, or with $by = 'op' op families; unmatched kernels are
-- items of their own symbol. The first item is the whole run: its samples are the run's
-- own end-to-end samples where a live capture stored them, else the sum of its nodes'.
-- An item's sample k is the sum over its nodes of their sample k. An item whose time is
-- not measured sample by sample (a profile with one time per node, or a derived node such
-- as a capture's runtime overhead, end-to-end less the kernels) is never tested: its
-- "samples" would be one number repeated.
-- Significance: the two-sided Mann-Whitney U test with ties (hotdb_mann_whitney_p: exact
-- up to 50 pooled samples, the normal approximation beyond; hotdb/stats.py), for every
-- item with at least two real samples a side; ratio_low/high: the 95 % confidence interval
-- of the ratio B / A (Hodges-Lehmann). A change is significant when p <= 0.05 and the
-- medians differ by at least $threshold_pct.
--
-- @param a  run A's id
-- @param b  run B's id
-- @param by  what an item is: 'workload' | 'kernel' | 'op'
-- @param threshold_pct  the least change of the medians, in %, that is significant
-- @returns item, task_name, task_args, time_a_us, time_b_us, delta_us, ratio, ratio_low,
--          ratio_high, samples_a, samples_b, p_value, significant, verdict
WITH node_items AS (
    SELECT n.run_id, n.node_index, n.time_us, n.sample_count > 0 AS sampled,
           CASE WHEN $by = 'op' THEN 'op ' || n.kernel_family
                WHEN $by = 'kernel' OR m.workload_key IS NULL THEN 'kernel ' || n.func_name
                ELSE m.workload_key END AS item,
           m.task_name, m.task_args
    FROM run_nodes AS n
    JOIN node_matches AS m USING (run_id, node_index)
    WHERE n.run_id IN ($a, $b)
),
sample_ids AS (
    SELECT run_id, max(sample_index) + 1 AS n FROM node_samples WHERE run_id IN ($a, $b) GROUP BY run_id
),
item_samples AS (
    SELECT i.run_id, i.item, k.k AS sample_index, sum(coalesce(s.time_us, i.time_us)) AS time_us,
           bool_and(i.sampled) AS sampled
    FROM node_items AS i
    JOIN (SELECT run_id, unnest(range(coalesce(n, 1))) AS k FROM runs LEFT JOIN sample_ids USING (run_id)
          WHERE run_id IN ($a, $b)) AS k ON k.run_id = i.run_id
    LEFT JOIN node_samples AS s ON s.run_id = i.run_id AND s.node_index = i.node_index AND s.sample_index = k.k
    GROUP BY ALL
),
stats AS (
    SELECT run_id, item, median(time_us) AS median_us, count(*) AS samples, list(time_us) AS values,
           bool_and(sampled) AS sampled
    FROM item_samples GROUP BY ALL
    UNION ALL  -- the whole run: its own end-to-end samples, else its nodes' summed sample by sample
    SELECT r.run_id, '(end to end)',
           coalesce(list_median(r.end_to_end_us), median(t.time_us)),
           coalesce(len(r.end_to_end_us), count(t.time_us)),
           coalesce(r.end_to_end_us, list(t.time_us)),
           r.end_to_end_us IS NOT NULL OR bool_and(t.sampled)
    FROM runs AS r
    LEFT JOIN (SELECT run_id, sample_index, sum(time_us) AS time_us, bool_and(sampled) AS sampled
               FROM item_samples GROUP BY ALL) AS t USING (run_id)
    WHERE r.run_id IN ($a, $b)
    GROUP BY r.run_id, r.end_to_end_us
),
names AS (
    SELECT item, any_value(task_name) AS task_name, any_value(task_args) AS task_args FROM node_items GROUP BY item
),
paired AS (
    SELECT coalesce(a.item, b.item) AS item, a.median_us AS time_a_us, b.median_us AS time_b_us,
           a.samples AS samples_a, b.samples AS samples_b,
           CASE WHEN a.sampled AND b.sampled AND a.samples >= 2 AND b.samples >= 2 THEN a.values END AS tested_a,
           CASE WHEN a.sampled AND b.sampled AND a.samples >= 2 AND b.samples >= 2 THEN b.values END AS tested_b
    FROM (SELECT * FROM stats WHERE run_id = $a) AS a
    FULL JOIN (SELECT * FROM stats WHERE run_id = $b) AS b USING (item)
),
tested AS (
    SELECT p.*, time_b_us / nullif(time_a_us, 0) AS ratio,
           hotdb_mann_whitney_p(tested_a, tested_b) AS p_value,
           hotdb_ratio_low(tested_a, tested_b) AS ratio_low,
           hotdb_ratio_high(tested_a, tested_b) AS ratio_high
    FROM paired AS p
)
SELECT t.item, n.task_name, n.task_args, t.time_a_us, t.time_b_us, t.time_b_us - t.time_a_us AS delta_us,
       t.ratio, t.ratio_low, t.ratio_high, t.samples_a, t.samples_b, t.p_value,
       coalesce(t.p_value <= 0.05 AND abs(t.ratio - 1) * 100 >= $threshold_pct, false) AS significant,
       CASE
           WHEN t.time_a_us IS NULL THEN 'added'
           WHEN t.time_b_us IS NULL THEN 'removed'
           WHEN t.p_value IS NULL THEN 'untested'
           WHEN t.p_value <= 0.05 AND abs(t.ratio - 1) * 100 >= $threshold_pct AND t.ratio > 1 THEN 'regression'
           WHEN t.p_value <= 0.05 AND abs(t.ratio - 1) * 100 >= $threshold_pct AND t.ratio < 1 THEN 'improvement'
           ELSE 'unchanged'
       END AS verdict
FROM tested AS t LEFT JOIN names AS n USING (item)
ORDER BY t.item <> '(end to end)', abs(coalesce(t.time_b_us, 0) - coalesce(t.time_a_us, 0)) DESC, t.item;
