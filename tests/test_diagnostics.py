import math
import zlib

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
    """Unbiased MMD^2 of N(0,1) vs N(mu,1) with a Gaussian kernel of bandwidth h has a closed
    form."""
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


def test_a_shared_reference_gives_the_same_mmd_bit_for_bit(rng):
    """MmdReference computes the reference's own term once; every MMD^2 against it equals the
    three-term formula of the general kernel exactly (same terms, same order), for column slices
    as the studies pass them (the 1-d kernel) and for several dimensions."""
    y = rng.normal(size=(400, 3))
    ref = [diagnostics.MmdReference.of(y[:, p], 0.8) for p in range(3)]
    c = 1.0 / (2.0 * 0.8 * 0.8)
    for shift in (0.0, 0.5):
        x = rng.normal(shift, 1.0, size=(300, 3))
        for p in range(3):
            a, b = x[:, p : p + 1], y[:, p : p + 1]
            k = diagnostics.mean_kernel
            direct = float(k(a, a, c, True) + k(b, b, c, True) - 2.0 * k(a, b, c, False))
            assert ref[p].mmd2(x[:, p]) == direct
            assert diagnostics.mmd2_unbiased(x[:, p], y[:, p], bandwidth=0.8) == direct
        k = diagnostics.mean_kernel  # several dimensions: the general kernel
        direct = float(k(x, x, c, True) + k(y, y, c, True) - 2.0 * k(x, y, c, False))
        assert diagnostics.MmdReference.of(y, 0.8).mmd2(x) == direct
    with pytest.raises(ValueError, match="bandwidth"):
        diagnostics.MmdReference.of(y, 0.0)
    with pytest.raises(ValueError, match="dimension"):
        diagnostics.MmdReference.of(y, 1.0).mmd2(y[:, :2])


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


# ----------------------------------------------------------------------------- R-hat and ESS
def _ar1(rng, chains, draws, phi, shift=None):
    e = rng.normal(size=(chains, draws))
    y = np.empty_like(e)
    y[:, 0] = e[:, 0] / math.sqrt(1.0 - phi * phi)
    for t in range(1, draws):
        y[:, t] = phi * y[:, t - 1] + e[:, t]
    return y if shift is None else y + np.asarray(shift, float)[:, None]


@pytest.mark.parametrize("shape", [(1, 101), (2, 64), (4, 1000), (3, 57)])
@pytest.mark.parametrize("kind", ["normal", "heavy", "ar1", "shifted"])
def test_rhat_and_bulk_ess_agree_with_arviz(shape, kind):
    """One implementation (Vehtari et al. 2021) checked against ArviZ's rank-normalised split
    R-hat and bulk ESS. ArviZ returns no R-hat for one chain (ours splits it in halves; the trend
    test below covers that case)."""
    az = pytest.importorskip("arviz")
    rng = np.random.default_rng(zlib.crc32(repr((shape, kind)).encode()))
    m, n = shape
    x = {
        "normal": lambda: rng.normal(size=shape),
        "heavy": lambda: rng.standard_t(2, size=shape),
        "ar1": lambda: _ar1(rng, m, n, 0.8),
        "shifted": lambda: _ar1(rng, m, n, 0.5, np.arange(m) * 0.4),
    }[kind]()
    ours_r, ours_e = diagnostics.split_rhat(x)[0], diagnostics.bulk_ess(x)[0]
    ref_e = float(az.ess(x, method="bulk"))
    assert ours_e == pytest.approx(ref_e, rel=1e-8)
    if m > 1:
        assert ours_r == pytest.approx(float(az.rhat(x, method="rank")), rel=1e-8)
    else:
        assert 0.9 < ours_r < 1.5


def test_rhat_and_ess_behave_as_theory_says():
    rng = np.random.default_rng(11)
    iid = rng.normal(size=(4, 2000, 2))
    assert np.all(diagnostics.split_rhat(iid) < 1.01)
    assert np.all(np.abs(diagnostics.bulk_ess(iid) / 8000 - 1) < 0.1)
    # AR(1): ESS = N (1 - phi) / (1 + phi); averaged over repetitions to beat the estimator's noise
    phi = 0.9
    ess = np.mean([diagnostics.bulk_ess(_ar1(rng, 4, 20000, phi))[0] for _ in range(5)])
    assert ess == pytest.approx(80000 * (1 - phi) / (1 + phi), rel=0.1)
    # chains that disagree, and a chain with a trend, fail R-hat
    assert diagnostics.split_rhat(_ar1(rng, 4, 1000, 0.5, [0, 0, 0, 1.5]))[0] > 1.1
    trend = rng.normal(size=(1, 2000)) + np.linspace(0, 3, 2000)
    assert diagnostics.split_rhat(trend)[0] > 1.1
    # chains that never move: R-hat 1 when they agree, inf when they do not; ESS 1
    assert diagnostics.split_rhat(np.ones((2, 10)))[0] == 1.0
    assert diagnostics.split_rhat(np.array([[1.0] * 10, [2.0] * 10]))[0] == math.inf
    assert diagnostics.bulk_ess(np.ones((2, 10)))[0] == 1.0
    with pytest.raises(ValueError):
        diagnostics.split_rhat(np.full((2, 10), np.nan))


@pytest.mark.parametrize(
    "values", [[3.0, 1.0, 2.0], [2.0, 1.0, 2.0, 2.0, 0.5], [1.0] * 5, [0.0, -0.0, 1.0]]
)
def test_average_ranks_are_scipys_and_need_no_scipy_stats(values):
    from scipy.stats import rankdata

    from dpinfer.diagnostics import average_ranks

    x = np.asarray(values)
    np.testing.assert_array_equal(average_ranks(x), rankdata(x, method="average"))


def test_rhat_with_ties_matches_arviz_and_imports_no_scipy_stats():
    import subprocess
    import sys

    az = pytest.importorskip("arviz")
    x = np.round(np.random.default_rng(1).normal(size=(4, 300)), 1)  # many ties
    assert diagnostics.split_rhat(x)[0] == pytest.approx(float(az.rhat(x, method="rank")), rel=1e-8)
    assert diagnostics.bulk_ess(x)[0] == pytest.approx(float(az.ess(x, method="bulk")), rel=1e-8)

    code = (
        "import sys, numpy as np; from dpinfer.diagnostics import split_rhat; "
        "x = np.round(np.random.default_rng(0).normal(size=(4, 200)), 1); "
        "split_rhat(x[..., None]); "
        "print('scipy.stats' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


def test_passing_share_counts_trials_within_both_limits():
    from dpinfer.diagnostics import passing_share

    health = {"max_rhat": 1.01, "min_ess": 400.0}
    rhat = [1.0, 1.01, 1.02, 1.0]
    ess = [400.0, 1000.0, 1000.0, 399.0]
    # only the first two pass: the limits are inclusive, either failure fails the trial
    assert passing_share(rhat, ess, health) == 0.5
