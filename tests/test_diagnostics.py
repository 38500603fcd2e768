import math

import numpy as np
import pytest

from dpinfer import diagnostics


def test_interval_and_coverage():
    draws = np.arange(1001, dtype=float)[:, None]
    lo, hi = diagnostics.central_interval(draws, 0.9)
    assert lo[0] == pytest.approx(50.0) and hi[0] == pytest.approx(950.0)
    hits = diagnostics.covers([0, 0], [1, 1], [0.5, 2.0])
    assert hits.tolist() == [True, False]
    assert diagnostics.coverage(np.array([[1], [0], [1], [1]])) == pytest.approx([0.75])
    assert diagnostics.binomial_se(0.5, 100) == pytest.approx(0.05)


def test_mmd_against_closed_form(rng):
    """Unbiased MMD^2 of N(0,1) vs N(mu,1) with a Gaussian kernel of bandwidth h has a closed form."""
    h, mu = 1.0, 0.7
    x = rng.normal(size=(3000, 1))
    y = rng.normal(mu, 1.0, size=(3000, 1))
    # E k(X,X') for X-X' ~ N(d, 2): (h^2/(h^2+2))^(1/2) exp(-d^2 / (2 (h^2+2)))
    c = math.sqrt(h * h / (h * h + 2.0))
    exact = 2 * c - 2 * c * math.exp(-mu * mu / (2 * (h * h + 2.0)))
    est = diagnostics.mmd2_unbiased(x, y, bandwidth=h)
    assert est == pytest.approx(exact, abs=0.01)
    same = diagnostics.mmd2_unbiased(x, rng.normal(size=(3000, 1)), bandwidth=h)
    assert abs(same) < 0.005


def test_median_heuristic_and_ks(rng):
    x = rng.normal(size=(500, 2))
    assert 1.0 < diagnostics.median_heuristic(x, x) < 2.5
    assert diagnostics.ks_uniform([0.5]) == pytest.approx(0.5)
    assert diagnostics.ks_uniform(rng.random(2000)) < diagnostics.ks_critical_value(2000, 0.01)
    assert diagnostics.ks_uniform(rng.random(2000) ** 2) > diagnostics.ks_critical_value(2000, 0.01)
    q = diagnostics.quantile_of_truth(np.arange(10.0), 4.5)
    assert q[0] == pytest.approx(0.5)


def test_ess_of_ar1_is_close_to_theory(rng):
    phi, n = 0.8, 200_000
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0]
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    ess = diagnostics.effective_sample_size(x)[0]
    assert ess == pytest.approx(n * (1 - phi) / (1 + phi), rel=0.1)


def test_non_finite_draws_refused():
    with pytest.raises(ValueError):
        diagnostics.posterior_mean([1.0, np.nan])
