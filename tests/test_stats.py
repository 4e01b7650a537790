"""The significance test and the ratio interval `compare` uses (hotdb/stats.py), against
a reference: every split of the pooled samples, enumerated."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.stats import mann_whitney_p, ratio_interval


def permutation_p(a: list[float], b: list[float]) -> float:
    """The reference: the two-sided permutation p-value of the rank sum, with midranks for
    ties, over every way to split the pooled samples into groups of len(a) and len(b)."""
    pooled = a + b
    ordered = sorted(pooled)
    midrank = {v: (ordered.index(v) + 1 + len(ordered) - ordered[::-1].index(v)) / 2 for v in set(pooled)}
    ranks = [midrank[v] for v in pooled]
    expected = len(a) * (len(pooled) + 1) / 2
    observed = abs(sum(ranks[:len(a)]) - expected)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    extreme = sum(1 for split in splits if abs(sum(ranks[i] for i in split) - expected) >= observed - 1e-9)
    return extreme / len(splits)


def test_p_values_match_the_permutation_reference_on_random_samples_with_ties():
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice([10.0, 10.5, 11.0, 12.0, 13.0]) for _ in range(rng.randint(2, 7))]
        b = [rng.choice([10.5, 11.0, 12.0, 13.0, 14.0]) for _ in range(rng.randint(2, 7))]
        assert mann_whitney_p(a, b) == pytest.approx(permutation_p(a, b), abs=1e-12), (a, b)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=2, max_size=6), st.lists(st.integers(0, 6), min_size=2, max_size=6))
def test_p_values_are_symmetric_and_exact(a, b):
    p = mann_whitney_p(a, b)
    assert 0 < p <= 1 and p == pytest.approx(mann_whitney_p(b, a))
    assert p == pytest.approx(permutation_p([float(x) for x in a], [float(x) for x in b]), abs=1e-12)


def test_known_values_and_what_cannot_be_tested():
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / math.comb(10, 5))
    assert mann_whitney_p([1, 1, 1], [1, 1, 1]) == 1.0  # all tied: nothing to see
    assert mann_whitney_p([1.0], [2.0, 3.0]) is None and mann_whitney_p(None, [1, 2]) is None


def test_large_samples_take_the_normal_approximation_with_ties():
    rng = random.Random(3)
    a = [round(rng.gauss(100, 5)) for _ in range(60)]
    b = [round(rng.gauss(103, 5)) for _ in range(60)]
    # the reference formula: z of the rank sum with the tie-corrected variance
    pooled = a + b
    ordered = sorted(pooled)
    ranks = {v: (ordered.index(v) + 1 + len(ordered) - ordered[::-1].index(v)) / 2 for v in set(pooled)}
    w = sum(ranks[v] for v in a)
    n, m, big_n = len(a), len(b), len(pooled)
    ties = sum(pooled.count(v) ** 3 - pooled.count(v) for v in set(pooled))
    sigma = math.sqrt(n * m / 12 * ((big_n + 1) - ties / (big_n * (big_n - 1))))
    z = abs(w - n * (big_n + 1) / 2) / sigma
    assert mann_whitney_p(a, b) == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-9)


def test_the_ratio_interval_holds_the_ratio_and_needs_enough_samples():
    a = [100.0, 101.0, 99.0, 100.5, 99.5]
    low, high = ratio_interval(a, [2 * x for x in a])
    assert low <= 2.0 <= high and high / low < 1.1
    assert ratio_interval([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]) is None  # 3 a side: no 95 % interval exists
    rng = random.Random(11)
    covered = 0
    for _ in range(200):  # a 95 % interval covers the true ratio about 95 % of the time
        a = [rng.lognormvariate(0, 0.1) for _ in range(8)]
        b = [1.3 * rng.lognormvariate(0, 0.1) for _ in range(8)]
        low, high = ratio_interval(a, b)
        covered += low <= 1.3 <= high
    assert 180 <= covered <= 200
