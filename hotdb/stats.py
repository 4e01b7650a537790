"""Two-sample statistics for `compare`: the Mann-Whitney U test with ties and a confidence
interval for the ratio of two runs' times. Registered as DuckDB functions for
queries/commands/compare.sql (store/database.py), so that the comparison stays one query.

p-values are exact for small samples, ties included: the null distribution of the rank
sum over the pooled midranks (doubled, so that they are integers) is counted by dynamic
programming, as a permutation test would enumerate it, in floats that stay exact below
2**53 (C(50, 25) ~ 1.3e14). Beyond 50 pooled samples, the normal approximation with the
tie correction is used. The ratio's interval is the Hodges-Lehmann one on log times:
the pairwise log ratios, cut at the rank the U distribution gives for 95 %.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

EXACT_MAX_POOLED = 50  # pooled samples up to which p-values are exact
CONFIDENCE = 0.95


def _midranks_doubled(pooled: list[float]) -> list[int]:
    """Twice each value's midrank (1-based) in the pooled sample: integers, ties shared."""
    order = sorted(range(len(pooled)), key=lambda i: pooled[i])
    ranks = [0] * len(pooled)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and pooled[order[j + 1]] == pooled[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = i + j + 2  # 2 * ((i + 1 + j + 1) / 2)
        i = j + 1
    return ranks


def _rank_sum_distribution(ranks: list[int], n: int) -> np.ndarray:
    """counts[s]: the number of n-subsets of `ranks` whose sum is s."""
    total = sum(ranks)
    counts = np.zeros((n + 1, total + 1))
    counts[0, 0] = 1.0
    for r in ranks:
        for k in range(n, 0, -1):
            counts[k, r:] += counts[k - 1, :total + 1 - r]
    return counts[n]


def mann_whitney_p(a: list[float] | None, b: list[float] | None) -> float | None:
    """Two-sided p-value of the Mann-Whitney U test of samples a and b (ties allowed);
    None with fewer than two samples on a side."""
    if not a or not b or len(a) < 2 or len(b) < 2:
        return None
    n, m = len(a), len(b)
    ranks = _midranks_doubled(list(a) + list(b))
    observed = sum(ranks[:n])  # doubled rank sum of a
    expected = n * (n + m + 1)  # doubled: 2 * n (N + 1) / 2
    if n + m <= EXACT_MAX_POOLED:
        counts = _rank_sum_distribution(ranks, n)
        sums = np.arange(counts.size)
        extreme = np.abs(sums - expected) >= abs(observed - expected)
        return float(min(1.0, counts[extreme].sum() / counts.sum()))
    return _normal_p(ranks, n, m, observed, expected)


def _normal_p(ranks: list[int], n: int, m: int, observed: int, expected: int) -> float:
    """The normal approximation with the tie correction (no continuity correction)."""
    pooled = n + m
    ties = {}
    for r in ranks:
        ties[r] = ties.get(r, 0) + 1
    tie_term = sum(t ** 3 - t for t in ties.values()) / (pooled * (pooled - 1))
    variance = n * m / 12.0 * ((pooled + 1) - tie_term)
    if variance <= 0:
        return 1.0
    z = abs(observed - expected) / 2.0 / math.sqrt(variance)
    return float(min(1.0, 2.0 * (1.0 - NormalDist().cdf(z))))


def _critical_rank(n: int, m: int) -> int | None:
    """The largest k with P(U < k) <= (1 - CONFIDENCE) / 2 under no ties: the Hodges-
    Lehmann interval is [k-th smallest, k-th largest] pairwise difference. None when the
    samples are too few for any interval at this confidence."""
    tail = (1.0 - CONFIDENCE) / 2.0
    if n + m <= EXACT_MAX_POOLED:
        counts = _rank_sum_distribution([2 * r for r in range(1, n + m + 1)], n)
        minimum = n * (n + 1)  # doubled rank sum at U = 0
        u_counts = counts[minimum::2][: n * m + 1]
        cumulative = np.cumsum(u_counts) / counts.sum()
        k = int(np.searchsorted(cumulative, tail, side="right"))  # P(U <= k - 1) <= tail
    else:
        k = int(math.floor(n * m / 2.0 - NormalDist().inv_cdf(1 - tail) * math.sqrt(n * m * (n + m + 1) / 12.0)))
    return k if k >= 1 else None


def ratio_interval(a: list[float] | None, b: list[float] | None) -> tuple[float, float] | None:
    """The 95 % confidence interval of the ratio b / a of typical times (Hodges-Lehmann on
    log times); None with too few samples, or with a time that is not positive."""
    if not a or not b or min(list(a) + list(b)) <= 0:
        return None
    k = _critical_rank(len(a), len(b))
    if k is None:
        return None
    logs = sorted(math.log(y) - math.log(x) for x in a for y in b)
    return math.exp(logs[k - 1]), math.exp(logs[len(logs) - k])


def register(con) -> None:
    """The functions compare.sql calls, on a DuckDB connection."""
    con.create_function("hotdb_mann_whitney_p", mann_whitney_p, ["DOUBLE[]", "DOUBLE[]"], "DOUBLE",
                        null_handling="special", side_effects=False)
    con.create_function("hotdb_ratio_low", lambda a, b: (ratio_interval(a, b) or (None, None))[0],
                        ["DOUBLE[]", "DOUBLE[]"], "DOUBLE", null_handling="special", side_effects=False)
    con.create_function("hotdb_ratio_high", lambda a, b: (ratio_interval(a, b) or (None, None))[1],
                        ["DOUBLE[]", "DOUBLE[]"], "DOUBLE", null_handling="special", side_effects=False)
