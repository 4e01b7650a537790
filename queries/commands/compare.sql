-- Run A against run B, item by item, with a significance test on the repeated samples.
-- Items are workloads (so a kernel renamed by a new TVM is still the same item), or with
-- $by = 'kernel' kernel symbols, or with $by = 'op' op families; unmatched kernels are
-- items of their own symbol.
-- An item's sample k is the sum over its nodes of their sample k (a node without
-- samples contributes its time to every sample, and counts as one sample).
-- Significance: two-sided exact Mann-Whitney U. hotdb declares a change significant only
-- when every sample of one run lies beyond every sample of the other (U = 0 or U = n_a n_b),
-- whose exact p-value is 2 / C(n_a + n_b, n_a), and that p is at most 0.05 (at least 4
-- samples a side), and the medians differ by at least $threshold_pct. One-sample items
-- are never significant.
-- Parameters: $a, $b (run ids), $by ('workload' | 'kernel' | 'op'), $threshold_pct.
WITH node_items AS (
    SELECT n.run_id, n.node_index, n.time_us,
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
    SELECT i.run_id, i.item, k.k AS sample_index, sum(coalesce(s.time_us, i.time_us)) AS time_us
    FROM node_items AS i
    JOIN (SELECT run_id, unnest(range(coalesce(n, 1))) AS k FROM runs LEFT JOIN sample_ids USING (run_id)
          WHERE run_id IN ($a, $b)) AS k ON k.run_id = i.run_id
    LEFT JOIN node_samples AS s ON s.run_id = i.run_id AND s.node_index = i.node_index AND s.sample_index = k.k
    GROUP BY ALL
),
with_total AS (
    SELECT * FROM item_samples
    UNION ALL  -- the whole run, sample by sample, as the first item
    SELECT run_id, '(end to end)', sample_index, sum(time_us) FROM item_samples GROUP BY ALL
),
stats AS (
    SELECT run_id, item, median(time_us) AS median_us, count(*) AS samples, list(time_us) AS values
    FROM with_total GROUP BY ALL
),
names AS (
    SELECT item, any_value(task_name) AS task_name, any_value(task_args) AS task_args FROM node_items GROUP BY item
),
paired AS (
    SELECT coalesce(a.item, b.item) AS item, a.median_us AS time_a_us, b.median_us AS time_b_us,
           a.samples AS samples_a, b.samples AS samples_b,
           (SELECT sum(CASE WHEN y > x THEN 1.0 WHEN y = x THEN 0.5 ELSE 0 END)
            FROM unnest(a.values) AS ta(x), unnest(b.values) AS tb(y)) AS u
    FROM (SELECT * FROM stats WHERE run_id = $a) AS a
    FULL JOIN (SELECT * FROM stats WHERE run_id = $b) AS b USING (item)
),
tested AS (
    SELECT p.*, time_b_us / nullif(time_a_us, 0) AS ratio,
           CASE WHEN samples_a >= 2 AND samples_b >= 2 AND (u = 0 OR u = samples_a * samples_b)
                THEN least(1.0, 2.0 * exp(lgamma(samples_a + 1) + lgamma(samples_b + 1)
                                          - lgamma(samples_a + samples_b + 1))) END AS p_value
    FROM paired AS p
)
SELECT t.item, n.task_name, n.task_args, t.time_a_us, t.time_b_us, t.time_b_us - t.time_a_us AS delta_us,
       t.ratio, t.samples_a, t.samples_b, t.p_value,
       coalesce(t.p_value <= 0.05 AND abs(t.ratio - 1) * 100 >= $threshold_pct, false) AS significant,
       CASE
           WHEN t.time_a_us IS NULL THEN 'added'
           WHEN t.time_b_us IS NULL THEN 'removed'
           WHEN t.p_value <= 0.05 AND abs(t.ratio - 1) * 100 >= $threshold_pct AND t.ratio > 1 THEN 'regression'
           WHEN t.p_value <= 0.05 AND abs(t.ratio - 1) * 100 >= $threshold_pct AND t.ratio < 1 THEN 'improvement'
           ELSE 'unchanged'
       END AS verdict
FROM tested AS t LEFT JOIN names AS n USING (item)
ORDER BY t.item <> '(end to end)', abs(coalesce(t.time_b_us, 0) - coalesce(t.time_a_us, 0)) DESC, t.item;
