"""Student's t distribution for `compare` (queries/_compare_items.sql): the quantile of a
95 % interval and the two-sided p-value of a t statistic, registered as DuckDB functions
so that the comparison stays one query. SciPy does the numerics (a dependency of the
tuner's XGBoost already); it is imported only when a comparison runs.

Why t on log times: a change in speed is a ratio, and log times make it a difference
whose spread between runs is about the same for fast and slow kernels; with the few
runs a comparison has (3 replicates a side), the t distribution, not the normal, gives
intervals that hold (docs/design.md, "Comparisons").
"""

from __future__ import annotations

import math

CONFIDENCE = 0.95


def t_quantile(df: float | None) -> float | None:
    """The two-sided 95 % critical value of Student's t with `df` degrees of freedom
    (fractional for Welch's); None without any."""
    if df is None or not math.isfinite(df) or df <= 0:
        return None
    from scipy.stats import t

    return float(t.ppf(1 - (1 - CONFIDENCE) / 2, df))


def t_p(statistic: float | None, df: float | None) -> float | None:
    """The two-sided p-value of a t statistic; None without one."""
    if statistic is None or df is None or not math.isfinite(df) or df <= 0 or math.isnan(statistic):
        return None
    from scipy.stats import t

    return float(min(1.0, 2 * t.sf(abs(statistic), df)))


def register(con) -> None:
    """The functions _compare_items.sql calls, on a DuckDB connection."""
    con.create_function("hotdb_t_quantile", t_quantile, ["DOUBLE"], "DOUBLE", null_handling="special",
                        side_effects=False)
    con.create_function("hotdb_t_p", t_p, ["DOUBLE", "DOUBLE"], "DOUBLE", null_handling="special",
                        side_effects=False)
