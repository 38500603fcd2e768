"""dpinfer.proportions against statsmodels' implementations, and the properties the scorecard
relies on (no zero-width interval, paired and pooled tests)."""

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from dpinfer.proportions import (
    format_proportion,
    mcnemar,
    pooled_z,
    wilson_interval,
)


@pytest.mark.parametrize("k,n", [(0, 20), (20, 20), (7, 20), (90, 100), (1, 3), (500, 1000)])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_intervals_match_statsmodels(k, n, level):
    lo, hi = wilson_interval(k, n, level)
    ref = proportion_confint(k, n, alpha=1 - level, method="wilson")
    assert np.allclose((lo, hi), ref, atol=1e-12)


def test_all_hits_have_width():
    lo, hi = wilson_interval(20, 20)
    assert hi == 1.0 and 0.80 < lo < 0.85  # 0.839
    assert format_proportion(20, 20) == "1.00 (20 of 20; 95% Wilson [0.84, 1.00])"


def test_pooled_z_matches_statsmodels():
    z, p = pooled_z(90, 100, 62, 100)
    zs, ps = proportions_ztest([90, 62], [100, 100])
    assert np.isclose(z, zs) and np.isclose(p, ps)
    assert pooled_z(20, 20, 100, 100) == (0.0, 1.0)


def test_mcnemar_exact_matches_statsmodels():
    rng = np.random.default_rng(3)
    a = rng.random(100) < 0.75
    b = a.copy()
    b[rng.choice(100, 15, replace=False)] = True
    n01, n10, p = mcnemar(a, b)
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    ref = sm_mcnemar(table, exact=True)
    assert (n01, n10) == (table[0][1], table[1][0])
    assert np.isclose(p, ref.pvalue)
    assert mcnemar(a, a)[2] == 1.0


def test_bad_input_refused():
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)
