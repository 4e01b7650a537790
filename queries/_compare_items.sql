-- Two groups of runs, A and B (one run each, or replicates), item by item (_run_items),
-- each change judged against the noise between runs (docs/design.md, "Comparisons"):
--
--   runs     the variance of log times between runs, pooled: each side's replicates
--            about their own mean, and the other runs the database holds of the builds
--            compared (_item_noise_of, the compared runs left out); a Student t interval
--            of the ratio of geometric means B / A, and a t test whose p-values are
--            adjusted across the items (Benjamini-Hochberg, 5 % false discoveries). With
--            few runs an item's variance is itself noisy (one item in twenty comes out
--            near 0 by chance): it is moderated toward the items' median variance, worth
--            4 runs (a moderated t, as limma does for few replicates)
--   samples  one run a side and no other run of its build: the repeated samples of the
--            two captures (Welch's t on log times), which do not hold the noise between
--            captures; a change is told only beyond $floor_pct either way
--   none     one capture a side with one time per item: nothing to judge by
--
-- A run captured beside busy processes (_quiet_run) is left out of its side when the side
-- has quiet runs. A side with none is judged with its interval widened by the most the
-- load can have slowed it (_load_slowdown, toward the faster side only: a load never
-- speeds a kernel up): sharing the CPUs slows every kernel alike (two busy processes on
-- two cores double its time), which neither its samples nor the noise of quieter runs
-- show, but a change beyond that bound (a tune's 3x and more) is still told, and the
-- reason says the load was allowed for.
--
-- The whole run, '(end to end)', is judged alone (no adjustment). An item with no kernel
-- (VM builtins, the runtime's overhead: the whole run less its kernels, a difference of
-- two noisy times that can near 0, and is left out of a run where it is not above 0) is
-- not judged, not even added or removed: log-normal noise does not describe it, and the
-- whole run's row holds its time.
--
-- @param a_runs         run ids of side A (a list)
-- @param b_runs         run ids of side B (a list)
-- @param item_kind             what an item is: 'workload' | 'kernel' | 'op'
-- @param threshold_pct  the least change of the geometric means, in %, that is told
-- @param floor_pct      the noise between captures assumed where only samples judge
-- @column item           the item, '(end to end)' first
-- @column task_name      a task of the item, if any
-- @column task_args      that task's arguments as JSON
-- @column time_a_us      side A's time, the geometric mean of its runs, in microseconds
-- @column time_b_us      side B's
-- @column delta_us       time_b_us - time_a_us
-- @column ratio          time_b_us / time_a_us
-- @column ratio_low      the ratio's 95 % interval, lower end (widened by a busy side's load)
-- @column ratio_high     its upper end
-- @column runs_a         runs of side A that time the item (its quiet ones, where it has any)
-- @column runs_b         runs of side B
-- @column samples_a      repeated samples of the item on side A (0: a printed time or a derived item)
-- @column samples_b      on side B
-- @column noise_from     what the noise was judged from: runs, samples or none
-- @column noise_pct      the half-width of the interval, in %
-- @column p_value        the t test's p-value (adjusted across items for noise_from runs)
-- @column significant    whether a change was told (faster or slower)
-- @column verdict        faster, slower, within noise, can't tell, added or removed
-- @column reason         for can't tell, why and what to capture; for a busy side, the load allowed for
CREATE OR REPLACE MACRO _compare_items(a_runs, b_runs, item_kind, threshold_pct, floor_pct) AS TABLE
WITH picked AS (
    SELECT CASE WHEN list_contains(a_runs, i.run_id) THEN 'a' ELSE 'b' END AS side, i.*,
           r.label, r.others_cpu_pct, _quiet_run(r.others_cpu_pct) AS quiet
    FROM _run_items(item_kind) AS i
    JOIN runs AS r USING (run_id)
    WHERE list_contains(a_runs, i.run_id) OR list_contains(b_runs, i.run_id)
    QUALIFY quiet OR NOT bool_or(quiet) OVER (PARTITION BY side, item)
),
sides AS (
    SELECT item, side, count(*) AS runs, exp(avg(ln(nullif(time_us, 0)))) AS time_us, avg(ln(nullif(time_us, 0))) AS mean_log,
           coalesce(var_samp(ln(nullif(time_us, 0))), 0) AS var_log,
           sum(samples) AS samples, bool_and(samples >= 2) AS sampled, any_value(run_id) AS run_id,
           any_value(task_name) AS task_name, any_value(task_args) AS task_args,
           min(label) AS label, min(others_cpu_pct) AS others_cpu_pct, bool_or(quiet) AS quiet,
           max(_load_slowdown(others_cpu_pct)) AS slowdown, bool_or(kernel) AS kernel
    FROM picked GROUP BY item, side
),
history AS (
    SELECT item, sum((runs - 1) * var_log) AS ss, sum(runs - 1) AS df
    FROM _item_noise_of(item_kind, list_concat(a_runs, b_runs))
    WHERE runs >= 2 AND build IN (SELECT build FROM _run_builds WHERE list_contains(list_concat(a_runs, b_runs), run_id))
    GROUP BY item
),
-- one capture a side: each item's samples (all its nodes sampled), summed sample by sample;
-- the whole run's are its own end-to-end samples, else all its nodes' summed
node_sums AS (
    SELECT i.run_id, i.item, s.sample_index, sum(s.time_us) AS time_us
    FROM _node_items(item_kind) AS i
    JOIN node_samples AS s USING (run_id, node_index)
    WHERE list_contains(list_concat(a_runs, b_runs), i.run_id)
    GROUP BY ALL
),
sample_sums AS (
    FROM node_sums
    UNION ALL
    SELECT r.run_id, '(end to end)', s.i, s.time_us
    FROM runs AS r, unnest(r.end_to_end_us) WITH ORDINALITY AS s(time_us, i)
    WHERE list_contains(list_concat(a_runs, b_runs), r.run_id)
    UNION ALL
    SELECT n.run_id, '(end to end)', n.sample_index, sum(n.time_us)
    FROM node_sums AS n JOIN runs AS r USING (run_id)
    WHERE r.end_to_end_us IS NULL
    GROUP BY ALL
),
sample_stats AS (
    SELECT run_id, item, count(*) AS n, avg(ln(time_us)) AS mean_log, var_samp(ln(time_us)) AS var_log
    FROM sample_sums WHERE time_us > 0 GROUP BY ALL
),
paired AS (
    SELECT coalesce(a.item, b.item) AS item, coalesce(a.task_name, b.task_name) AS task_name,
           coalesce(a.task_args, b.task_args) AS task_args,
           a.time_us AS time_a_us, b.time_us AS time_b_us, a.runs AS runs_a, b.runs AS runs_b,
           coalesce(a.samples, 0) AS samples_a, coalesce(b.samples, 0) AS samples_b,
           b.mean_log - a.mean_log AS d, coalesce(a.kernel, b.kernel) AS kernel,
           nullif(concat_ws(' and ',
               CASE WHEN NOT a.quiet AND a.runs = 1 THEN format('run {} ({:.0f} % of the CPUs)', a.label, a.others_cpu_pct)
                    WHEN NOT a.quiet THEN format('every run of side A ({}, {:.0f} % of the CPUs or more)', a.runs,
                                                 a.others_cpu_pct) END,
               CASE WHEN NOT b.quiet AND b.runs = 1 THEN format('run {} ({:.0f} % of the CPUs)', b.label, b.others_cpu_pct)
                    WHEN NOT b.quiet THEN format('every run of side B ({}, {:.0f} % of the CPUs or more)', b.runs,
                                                 b.others_cpu_pct) END), '') AS busy_run,
           coalesce(a.slowdown, 1.0) AS slow_a, coalesce(b.slowdown, 1.0) AS slow_b,
           CASE
               WHEN a.item IS NULL OR b.item IS NULL OR a.mean_log IS NULL OR b.mean_log IS NULL THEN NULL
               WHEN NOT coalesce(a.kernel, b.kernel) THEN 'none'
               WHEN coalesce(h.df, 0) + a.runs + b.runs - 2 >= 1 THEN 'runs'
               WHEN a.runs = 1 AND b.runs = 1 AND a.sampled AND b.sampled AND sa.n >= 2 AND sb.n >= 2 THEN 'samples'
               ELSE 'none'
           END AS noise_from,
           (coalesce(h.ss, 0) + (a.runs - 1) * a.var_log + (b.runs - 1) * b.var_log)
               / nullif(coalesce(h.df, 0) + a.runs + b.runs - 2, 0) AS h_var,
           coalesce(h.df, 0) + a.runs + b.runs - 2 AS h_df, sa.n AS sa_n, sa.var_log AS sa_var, sb.n AS sb_n, sb.var_log AS sb_var
    FROM (SELECT * FROM sides WHERE side = 'a') AS a
    FULL JOIN (SELECT * FROM sides WHERE side = 'b') AS b USING (item)
    LEFT JOIN history AS h ON h.item = coalesce(a.item, b.item)
    LEFT JOIN sample_stats AS sa ON sa.run_id = a.run_id AND sa.item = a.item AND a.runs = 1
    LEFT JOIN sample_stats AS sb ON sb.run_id = b.run_id AND sb.item = b.item AND b.runs = 1
),
moderated AS (
    SELECT *,
           CASE WHEN noise_from = 'runs' AND item <> '(end to end)' THEN
               median(h_var) OVER (PARTITION BY noise_from = 'runs' AND item <> '(end to end)') END AS prior_var
    FROM paired
),
spread AS (
    SELECT *,
           CASE
               WHEN noise_from = 'runs' AND prior_var IS NOT NULL
                   THEN sqrt((4 * prior_var + h_df * h_var) / (4 + h_df) * (1.0 / runs_a + 1.0 / runs_b))
               WHEN noise_from = 'runs' THEN sqrt(h_var * (1.0 / runs_a + 1.0 / runs_b))
               WHEN noise_from = 'samples' THEN sqrt(sa_var / sa_n + sb_var / sb_n)
           END AS se,
           CASE noise_from
               WHEN 'runs' THEN h_df + CASE WHEN prior_var IS NOT NULL THEN 4 ELSE 0 END::DOUBLE
               -- Welch-Satterthwaite
               WHEN 'samples' THEN pow(sa_var / sa_n + sb_var / sb_n, 2)
                    / nullif(pow(sa_var / sa_n, 2) / (sa_n - 1) + pow(sb_var / sb_n, 2) / (sb_n - 1), 0)
           END AS df
    FROM moderated
),
tested AS (
    -- a busy side's load can only have slowed it: B's by up to slow_b (the ratio may be
    -- that much lower), A's by up to slow_a (that much higher)
    SELECT *, exp(d) AS ratio,
           exp(d - hotdb_t_quantile(df) * se) / slow_b AS ratio_low,
           exp(d + hotdb_t_quantile(df) * se) * slow_a AS ratio_high,
           hotdb_t_p(d / nullif(se, 0), df) AS p_raw
    FROM spread
),
adjusted AS (
    SELECT *,
           CASE WHEN noise_from = 'runs' AND item <> '(end to end)' THEN least(1.0, min(p_raw * m / rnk) OVER (
               PARTITION BY noise_from = 'runs' AND item <> '(end to end)'
               ORDER BY p_raw DESC, item ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
           ELSE p_raw END AS p_value
    FROM (SELECT *,
                 count(*) OVER (PARTITION BY noise_from = 'runs' AND item <> '(end to end)') AS m,
                 row_number() OVER (PARTITION BY noise_from = 'runs' AND item <> '(end to end)'
                                    ORDER BY p_raw, item) AS rnk
          FROM tested)
),
judged AS (
    SELECT *,
           CASE
               -- before added/removed: the overhead is left out of a run where it came to <= 0
               WHEN NOT kernel THEN 'can''t tell'
               WHEN time_a_us IS NULL AND runs_a IS NULL THEN 'added'
               WHEN time_b_us IS NULL AND runs_b IS NULL THEN 'removed'
               -- a busy side: told only where the interval widened by the load excludes no change
               WHEN busy_run IS NOT NULL AND noise_from IN ('runs', 'samples') AND abs(ratio - 1) * 100 >= threshold_pct
                    AND (ratio_low > 1 + CASE WHEN noise_from = 'samples' THEN floor_pct ELSE 0 END / 100 OR ratio_high < 1 / (1 + CASE WHEN noise_from = 'samples' THEN floor_pct ELSE 0 END / 100))
                   THEN CASE WHEN ratio > 1 THEN 'slower' ELSE 'faster' END
               WHEN busy_run IS NOT NULL THEN 'can''t tell'
               WHEN noise_from = 'runs' AND p_value <= 0.05 AND abs(ratio - 1) * 100 >= threshold_pct
                   THEN CASE WHEN ratio > 1 THEN 'slower' ELSE 'faster' END
               WHEN noise_from = 'runs' THEN 'within noise'
               WHEN noise_from = 'samples' AND abs(ratio - 1) * 100 >= threshold_pct
                    AND (ratio_low > 1 + floor_pct / 100 OR ratio_high < 1 / (1 + floor_pct / 100))
                   THEN CASE WHEN ratio > 1 THEN 'slower' ELSE 'faster' END
               ELSE 'can''t tell'
           END AS verdict
    FROM adjusted
)
SELECT item, task_name, task_args, time_a_us, time_b_us, time_b_us - time_a_us AS delta_us,
       ratio, ratio_low, ratio_high, runs_a, runs_b, samples_a, samples_b, noise_from,
       CASE WHEN noise_from IS NOT NULL AND noise_from <> 'none'
            THEN 100 * (exp(hotdb_t_quantile(df) * se) - 1) END AS noise_pct,
       p_value, verdict IN ('faster', 'slower') AS significant, verdict,
       CASE
           WHEN verdict IN ('faster', 'slower') AND busy_run IS NOT NULL THEN
               format('{} captured beside busy processes: told beyond the {:.1f}x they can slow a kernel',
                      busy_run, greatest(slow_a, slow_b))
           WHEN verdict <> 'can''t tell' THEN NULL
           WHEN NOT kernel THEN
               'not a kernel: the runtime''s own time (the whole run''s row judges it)'
           WHEN noise_from IS NULL THEN 'no time measured on a side (a call the profiler timed as 0)'
           WHEN busy_run IS NOT NULL THEN
               format('{} captured beside busy processes, which can slow a kernel up to {:.1f}x, more than this '
                      'change: capture again on a quiet machine (each side with --replicates 3)', busy_run,
                      greatest(slow_a, slow_b))
           WHEN noise_from = 'samples' THEN
               format('one run a side, no history: within ±{:.0f} % may be capture noise; capture with --replicates 3',
                      floor_pct)
           WHEN samples_a = 0 OR samples_b = 0 THEN
               'one run a side, no history, no repeated samples: capture with --replicates 3'
           ELSE 'one run a side, no history: capture with --replicates 3'
       END AS reason
FROM judged;
