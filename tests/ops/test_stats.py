"""Student's t for compare (hotdb/ops/stats.py): the 95 % critical value and the two-sided
p-value agree with each other and with the textbook table."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotdb.ops.stats import t_p, t_quantile


def test_textbook_values():
    # two-sided 95 % critical values of Student's t (any statistics table)
    for df, critical in ((1, 12.706), (2, 4.303), (4, 2.776), (10, 2.228), (30, 2.042)):
        assert t_quantile(df) == pytest.approx(critical, abs=1e-3)
    assert t_p(0.0, 5) == 1.0


@given(df=st.floats(0.5, 500), statistic=st.floats(-50, 50))
def test_quantile_and_p_agree(df, statistic):
    assert t_p(t_quantile(df), df) == pytest.approx(0.05, abs=1e-9)
    p = t_p(statistic, df)
    assert 0 <= p <= 1 and p == pytest.approx(t_p(-statistic, df))
    assert (p <= 0.05) == (abs(statistic) >= t_quantile(df) - 1e-9) or abs(abs(statistic) - t_quantile(df)) < 1e-6


def test_nothing_to_judge_is_none():
    assert t_quantile(None) is None and t_quantile(0) is None and t_p(None, 3) is None and t_p(1.0, None) is None
