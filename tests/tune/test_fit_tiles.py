"""fit_tiles (hotdb/capture/tune/siblings.py): a relative's tile size decision fitted to
a task's loop, as a relative trial replays it. MetaSchedule rejects a decision whose
factors do not multiply to the loop's extent, and one whose innermost factor passes the
instruction's max_innermost_factor."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from hotdb.capture.tune.siblings import fit_tiles

factors = st.lists(st.integers(1, 64), min_size=2, max_size=4)
extents = st.integers(1, 4096)
innermost = st.sampled_from([-1, 16, 64])


@given(factors, extents, innermost)
def test_a_fitted_decision_is_one_metaschedule_takes(old, extent, max_innermost):
    new = fit_tiles(old, extent, max_innermost)
    assert len(new) == len(old) and math.prod(new) == extent and all(f >= 1 for f in new)
    if max_innermost > 0 and math.prod(old) != extent:
        assert new[-1] <= max_innermost


@given(factors, innermost)
def test_a_decision_that_fits_its_loop_is_kept(old, max_innermost):
    assert fit_tiles(old, math.prod(old), max_innermost) == old


@given(factors, st.integers(1, 8), innermost)
def test_inner_factors_that_divide_the_new_extent_are_kept(old, scale, max_innermost):
    """A loop `scale` times as long (the next stage's channels): every inner factor still
    divides it, so only the outermost grows."""
    extent = math.prod(old) * scale
    if max_innermost > 0 and old[-1] > max_innermost or scale == 1:
        return
    assert fit_tiles(old, extent, max_innermost) == [old[0] * scale, *old[1:]]


def test_a_shorter_loop_takes_the_nearest_divisors():
    """ResNet's stage 3 to stage 4: a spatial loop of 14 tiled [1, 2, 7, 1] fitted to 7;
    a channel loop of 256 tiled [4, 2, 2, 16] to 512, [2, 1, 8, 8] to 28."""
    assert fit_tiles([1, 2, 7, 1], 7, 64) == [1, 1, 7, 1]
    assert fit_tiles([4, 2, 2, 16], 512, 64) == [8, 2, 2, 16]
    assert fit_tiles([2, 1, 8, 8], 28, 64) == [1, 1, 4, 7]
