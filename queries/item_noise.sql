-- The noise floor from history: how much each workload's time (and the whole run's)
-- varies between runs of one build, the same model, IR and target, untuned (replicates
-- included; captures beside busy processes left out). Estimated from the runs the database holds: the standard
-- deviation of log times, as a percentage. `compare` pools it over the builds it
-- compares, so that one capture a side is judged against the noise between captures,
-- which the samples of one capture do not show (docs/design.md, "Comparisons").
--
-- @column build       the build: model id, IR hash, target (and the run, for a tuned one)
-- @column model       the model's name
-- @column item        the workload key, 'kernel <symbol>' for unmatched kernels, or '(end to end)'
-- @column runs        runs of the build that time the item
-- @column spread_pct  one standard deviation of the item's time between runs, in % (of log times); NULL with one run
-- @column enough      whether the estimate rests on at least 3 runs (with fewer, a comparison's interval is wide)
CREATE OR REPLACE VIEW item_noise AS
SELECT n.build, m.name AS model, n.item, n.runs,
       100 * (exp(sqrt(n.var_log)) - 1) AS spread_pct,
       n.runs >= 3 AS enough
FROM _item_noise_of('workload', []::BIGINT[]) AS n
JOIN models AS m USING (model_id);
