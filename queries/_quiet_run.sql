-- Whether a run was captured on a quiet machine: other processes used at most 10 % of the
-- CPUs while it timed (runs.others_cpu_pct; an ingested file, which does not say, counts
-- as quiet). An idle 2-core machine measured 0-1 %, one spinning process beside a
-- capture 50 %, two 67-70 %, and those doubled every kernel's time: a busy capture
-- measures the machine, so comparisons and the noise floor leave it out
-- (bench/compare_noise.py). The one statement of the threshold.
--
-- @param others_cpu_pct  the CPU time other processes used while the run timed, in %
CREATE OR REPLACE MACRO _quiet_run(others_cpu_pct) AS coalesce(others_cpu_pct, 0) <= 10;

