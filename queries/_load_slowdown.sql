-- The most a load can have slowed a capture: other processes that used a share f of the
-- CPUs while it timed left it 1 - f of them at the least, so its times are at most
-- 1 / (1 - f) of a quiet machine's (f taken up to 90 %: 10x at the most). Two spinning
-- processes on 2 cores (67-70 %) bound it at 3.0-3.3x, where they doubled the MLP's
-- kernels: a bound, never an estimate. 1 for a quiet run. A comparison widens a busy
-- side's interval by it: a change beyond what the load can do is told.
--
-- @param others_cpu_pct  the CPU time other processes used while the run timed, in %
CREATE OR REPLACE MACRO _load_slowdown(others_cpu_pct) AS
    CASE WHEN _quiet_run(others_cpu_pct) THEN 1.0 ELSE 1.0 / (1.0 - least(others_cpu_pct, 90.0) / 100.0) END;
