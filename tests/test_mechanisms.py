import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpinfer import mechanisms as m


def test_known_scales():
    assert m.Laplace.calibrated(epsilon=0.1, sensitivity=10).scale == pytest.approx(100.0)
    assert m.Laplace.calibrated(epsilon=10, sensitivity=13).scale == pytest.approx(1.3)
    assert m.Laplace(scale=2.0, sensitivity=3.0).epsilon == pytest.approx(1.5)
    g = m.Gaussian.calibrated(epsilon=0.5, sensitivity=1.0, delta=1e-5)
    assert g.sigma == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / 0.5)
    assert m.Gaussian.from_zcdp(rho=0.5, sensitivity=2.0).sigma == pytest.approx(2.0)
    assert m.Gaussian(sigma=2.0, sensitivity=2.0).rho_zcdp == pytest.approx(0.5)
    # DGeom(rho): ratio of successive probabilities 1 - rho; epsilon = -log(1 - rho) per unit
    assert m.DoubleGeometric.calibrated(epsilon=math.log(2.0)).rho == pytest.approx(0.5)
    assert m.DoubleGeometric(rho=0.1).epsilon == pytest.approx(-math.log(0.9))
    assert m.DiscreteGaussian.from_zcdp(rho=0.5, sensitivity=1.0).sigma == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon_is_refused(bad):
    with pytest.raises(ValueError, match="epsilon"):
        m.Laplace.calibrated(epsilon=bad, sensitivity=1.0)


def test_unknown_mechanism_name():
    with pytest.raises(ValueError, match="unknown mechanism"):
        m.calibrate("laplacian", epsilon=1.0, sensitivity=1.0)
    assert m.calibrate("laplace", 0.5, 2.0) == m.Laplace(scale=4.0, sensitivity=2.0)


def test_continuous_densities_integrate_to_one_and_match_scipy():
    lap = m.Laplace.calibrated(epsilon=0.7, sensitivity=2.0)
    assert integrate.quad(lambda x: math.exp(lap.logpdf(x)), -np.inf, np.inf)[0] == pytest.approx(
        1.0, abs=1e-8
    )
    x = np.linspace(-5, 5, 11)
    assert np.allclose(lap.logpdf(x), stats.laplace(scale=lap.scale).logpdf(x))
    gau = m.Gaussian.calibrated(epsilon=0.5, sensitivity=1.0)
    assert np.allclose(gau.logpdf(x), stats.norm(scale=gau.sigma).logpdf(x))


def test_discrete_masses_sum_to_one():
    k = np.arange(-400, 401)
    dg = m.DoubleGeometric.calibrated(epsilon=0.3)
    assert np.exp(dg.logpdf(k)).sum() == pytest.approx(1.0, abs=1e-12)
    assert np.exp(dg.logpdf(0)) == pytest.approx(dg.rho / (2 - dg.rho))
    dn = m.DiscreteGaussian.from_zcdp(rho=0.02)
    assert np.exp(dn.logpdf(k)).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "mech",
    [
        m.Laplace.calibrated(epsilon=1.0, sensitivity=3.0),
        m.Gaussian.calibrated(epsilon=0.8, sensitivity=1.0),
        m.DoubleGeometric.calibrated(epsilon=0.5, sensitivity=1.0),
        m.DoubleGeometric(rho=0.01),
        m.DiscreteGaussian.from_zcdp(rho=0.1, sensitivity=1.0),
    ],
)
def test_release_noise_has_the_stated_law(mech, rng):
    """KS / chi-square goodness of fit of 20,000 released noise values against logpdf."""
    noise = mech.release(rng, np.zeros(20000)) - 0
    if isinstance(mech, (m.Laplace, m.Gaussian)):
        dist = (
            stats.laplace(scale=mech.scale)
            if isinstance(mech, m.Laplace)
            else stats.norm(scale=mech.sigma)
        )
        assert stats.kstest(noise, dist.cdf).pvalue > 1e-3
    else:
        assert np.all(noise == np.round(noise))
        ks = np.arange(-400, 401) if getattr(mech, "rho", 1.0) < 0.05 else np.arange(-12, 13)
        p = np.exp(mech.logpdf(ks))
        observed = np.array([(noise == k).sum() for k in ks] + [(np.abs(noise) > ks[-1]).sum()])
        expected = np.append(p, max(1.0 - p.sum(), 1e-12)) * noise.size
        keep = expected > 5
        chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
        assert stats.chi2(keep.sum() - 1).sf(chi2) > 1e-3


def test_clamp_rescale():
    c = m.ClampRescale(-10.0, 10.0)
    assert np.allclose(c.apply([-20, -10, 0, 5, 10, 30]), [-1, -1, 0, 0.5, 1, 1])
    with pytest.raises(ValueError):
        m.ClampRescale(1.0, 1.0)


def test_clamp_matches_the_authors_release():
    """Our clamp-and-rescale of the authors' data reproduces their noise-free statistics."""
    from dpinfer.io import read_json
    from dpinfer.models import gaussian_linreg
    from tests.conftest import DATA_JU2022

    ref = gaussian_linreg.load_reference(*gaussian_linreg.reference_files(DATA_JU2022))
    check = read_json(DATA_JU2022 / "derived_linearregression_release_check.json")["objects"]
    t1, t2, t3 = (np.asarray(check[k]["values"]) for k in ("T1_true", "T2_true", "T3_true"))
    expected = (
        list(t1) + [t2] + [t3[j, k] for j in range(3) for k in range(j, 3) if (j, k) != (0, 0)]
    )
    assert np.allclose(
        gaussian_linreg.released_statistic(ref.X, ref.y, ref.clamp), expected, atol=1e-12
    )
