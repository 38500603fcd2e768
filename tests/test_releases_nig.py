"""The nig_regression release model (chapter 5's NIG regression from a release a user holds,
:mod:`dpinfer.releases.nig`): its posteriors against the exact conjugate posterior where the noise
is negligible, its methods against each other under real noise, its map to the data's units
against the own-data study's, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

from dpinfer.mechanisms import DoubleGeometric, Gaussian, Laplace
from dpinfer.models.linreg_nig_multi import (
    NIWPriorP,
    ProblemP,
    ReleaseP,
    nig_posterior_p,
    nig_prior_p,
    sufficient_statistics_p,
)
from dpinfer.own_data import Confidential, DataSpec, UnitScaling
from dpinfer.releases import ReleaseError, posterior, release_from_values
from dpinfer.releases.core import chain_rngs
from dpinfer.releases.nig import nig_posteriors
from dpinfer.releases.spec import NIG_DATA_PRIOR, NIG_PRIOR
from dpinfer.samplers.registry import sampler

# covariates age, hours and the response score, in data units, and their public bounds
BOUNDS = {"age": (20.0, 60.0), "hours": (0.0, 40.0), "score": (0.0, 100.0)}
SPEC = DataSpec("toy", "unused.csv", "score", ("age", "hours"), BOUNDS)
SHORT = dict(chains=4, burnin=500, keep=500, max_keep=8000, draws=4000)


def _records(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Clamped records of SPEC on the unit scale (own-data's UnitScaling.to_unit)."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(15.0, 65.0, n)  # some outside the bounds: clamped
    hours = rng.uniform(0.0, 40.0, n)
    score = 20.0 + 0.6 * age + 0.8 * hours + 8.0 * rng.standard_normal(n)
    clip = {c: np.clip(v, *BOUNDS[c]) for c, v in zip(BOUNDS, (age, hours, score), strict=True)}
    data = Confidential("toy", np.column_stack([clip["age"], clip["hours"]]), clip["score"], {})
    return UnitScaling.of(SPEC).to_unit(data)


def _bounds_list() -> list[list[float]]:
    return [list(BOUNDS[c]) for c in (*SPEC.covariates, SPEC.response)]


def _mcse(post) -> np.ndarray:
    """Monte Carlo standard error of each posterior mean: sd / sqrt(bulk ESS)."""
    return post.draws.std(axis=0, ddof=1) / np.sqrt(post.ess)


@pytest.mark.parametrize("mech", [Laplace(scale=0.01), Gaussian(sigma=0.01)], ids=repr)
def test_negligible_noise_gives_the_conjugate_posterior_of_the_clamped_records(mech):
    """Laplace scale or Gaussian sd 0.01 on sums of order n: every noise-aware method's posterior
    means (data units) agree with the exact NIG posterior of the clamped records' statistics
    (what the registry's non_private draws from), mapped by own-data's UnitScaling, within 4
    MCSE."""
    X, y = _records(200, seed=1)
    s = sufficient_statistics_p(X, y)
    z = s + mech.release(np.random.default_rng(2), np.zeros_like(s))
    posts = nig_posteriors(z, 200, mech, bounds=_bounds_list(), release="tiny", seed=5, **SHORT)
    assert [p.method for p in posts] == ["mcmc_ind", "gibbs_ss_update", "gibbs_ss_prior"]
    prior = nig_prior_p(2, **NIG_PRIOR)
    mu_n, _, a_n, b_n = nig_posterior_p(s, 200, 2, prior)
    # the map is affine in theta and linear in sigma^2: it maps the exact means to exact means
    exact = UnitScaling.of(SPEC).to_original(np.append(mu_n, b_n / (a_n - 1.0))[None, :])[0]
    for post in posts:
        assert post.converged, post.method
        assert post.parameters == ("beta_1", "beta_2", "intercept", "sigma2")
        err = np.abs(post.draws.mean(axis=0) - exact)
        assert np.all(err < 4.0 * _mcse(post)), (post.method, err / _mcse(post))


def test_methods_agree_under_real_noise():
    """At Laplace scale 5 (epsilon 8 at the thesis's sensitivity 40 for p = 2) MCMC-Ind (exact
    target) and Gibbs-SS-Update (CLT) agree on every posterior mean within 4 combined MCSE, both
    converged, and the noise widens the posterior beyond the naive one's."""
    X, y = _records(300, seed=3)
    mech = Laplace(scale=5.0)
    z = mech.release(np.random.default_rng(4), sufficient_statistics_p(X, y))
    posts = {
        p.method: p
        for p in nig_posteriors(z, 300, mech, bounds=_bounds_list(), release="noisy", **SHORT)
    }
    a, b = posts["mcmc_ind"], posts["gibbs_ss_update"]
    assert a.converged and b.converged
    diff = np.abs(a.draws.mean(axis=0) - b.draws.mean(axis=0))
    tol = 4.0 * np.hypot(_mcse(a), _mcse(b))
    assert np.all(diff < tol), diff / tol
    assert np.all(a.draws.std(axis=0) > a.naive.std(axis=0))


def test_methods_agree_under_real_gaussian_noise_and_a_wrong_sd_disagrees():
    """At Gaussian sd 5 MCMC-Ind (exact target) and Gibbs-SS-Update (its mixture variances fixed
    at sigma^2) agree on every posterior mean within 4 combined MCSE, both converged; told three
    times the true sd, Gibbs-SS-Update's posterior is off MCMC-Ind's at the true sd: a mean by
    more than 4 combined MCSE and every coefficient's sd over 1.3 times (so the sd reaches the
    kernels; observed about 2.6)."""
    X, y = _records(300, seed=3)
    mech = Gaussian(sigma=5.0)
    z = mech.release(np.random.default_rng(4), sufficient_statistics_p(X, y))
    kw = dict(bounds=_bounds_list(), release="gauss", **SHORT)
    posts = {p.method: p for p in nig_posteriors(z, 300, mech, **kw)}
    a, b = posts["mcmc_ind"], posts["gibbs_ss_update"]
    assert a.converged and b.converged
    diff = np.abs(a.draws.mean(axis=0) - b.draws.mean(axis=0))
    tol = 4.0 * np.hypot(_mcse(a), _mcse(b))
    assert np.all(diff < tol), diff / tol
    wrong = nig_posteriors(z, 300, Gaussian(sigma=15.0), **kw)[1]
    assert wrong.method == "gibbs_ss_update" and wrong.converged
    off = np.abs(wrong.draws.mean(axis=0) - a.draws.mean(axis=0))
    assert np.any(off > 4.0 * np.hypot(_mcse(wrong), _mcse(a))), off
    # sd of each coefficient: relative MC error of an sd from ESS >= 400 draws is below 4%
    ratio = wrong.draws.std(axis=0)[:3] / a.draws.std(axis=0)[:3]
    assert np.all(ratio > 1.3), ratio


def test_data_units_are_own_datas():
    """The naive draws equal the registry's naive on the unit scale (same stream) mapped by
    own-data's UnitScaling of a data set with these bounds: bounds are read covariates first,
    then the response, as own-data orders its columns."""
    X, y = _records(150, seed=6)
    mech = Laplace(scale=2.0)
    z = mech.release(np.random.default_rng(7), sufficient_statistics_p(X, y))
    short = dict(SHORT, keep=100, max_keep=100, burnin=50, draws=500)
    post = nig_posteriors(z, 150, mech, bounds=_bounds_list(), release="map", seed=9, **short)[0]
    nan = np.full(z.shape, np.nan)
    problem = ProblemP(
        ReleaseP(nan, 150, 2, z, mech, nan, mech, clamped=False),
        nig_prior_p(2, **NIG_PRIOR),
        NIWPriorP.isotropic(2, **NIG_DATA_PRIOR),
    )
    rng = chain_rngs(9, "map", "naive", 1)[0]
    unit = sampler("nig_linreg_p", "naive")(problem, rng, burnin=0, keep=500).kept
    np.testing.assert_allclose(post.naive, UnitScaling.of(SPEC).to_original(unit), rtol=1e-12)
    # sigma2 in score units: (half-width 50)^2 times the unit-scale sigma^2
    np.testing.assert_allclose(post.naive[:, 3], 2500.0 * unit[:, 3], rtol=1e-12)


def _entry(**changes) -> dict:
    entry = {
        "model": "nig_regression",
        "n": 100,
        "mechanism": {"kind": "laplace", "scale": 3.0},
        "bounds": [[0, 10], [-5, 5]],
    }
    return dict(entry, **changes)


def test_refusals_name_the_key_and_counts():
    z5 = np.linspace(1.0, 5.0, 5)
    with pytest.raises(ReleaseError, match=r"6 released values .* has 5"):
        release_from_values("r", _entry(), np.ones(6))
    with pytest.raises(ReleaseError, match=r"bounds\[1\] must be finite with lower < upper"):
        release_from_values("r", _entry(bounds=[[0, 10], [5, -5]]), z5)
    with pytest.raises(ReleaseError, match=r"data_prior.rho is not"):
        release_from_values("r", _entry(data_prior={"rho": 1}), z5)
    with pytest.raises(ReleaseError, match=r"prior.tau is not a nig_regression prior key"):
        release_from_values("r", _entry(prior={"tau": 1}), z5)
    dlap = {"kind": "discrete_laplace", "epsilon": 1.0, "sensitivity": 1}
    with pytest.raises(ReleaseError, match=r"release 'r'.*nig_regression.*Gaussian.*DoubleGeom"):
        posterior(z5, name="r", **dict(_entry(), mechanism=dlap))
    # the function itself: a length no p gives, reversed bounds, a discrete mechanism
    with pytest.raises(ReleaseError, match=r"'r': 6 released statistics"):
        nig_posteriors(np.ones(6), 100, Laplace(scale=1.0), bounds=[[0, 1]] * 2, release="r")
    with pytest.raises(ReleaseError, match=r"lower < upper"):
        nig_posteriors(z5, 100, Laplace(scale=1.0), bounds=[[1, 0], [0, 1]], release="r")
    with pytest.raises(ReleaseError, match=r"needs 2 pairs"):
        nig_posteriors(z5, 100, Laplace(scale=1.0), bounds=[[0, 1]] * 3, release="r")
    with pytest.raises(ReleaseError, match=r"nig_regression model's samplers take Laplace or"):
        nig_posteriors(z5, 100, DoubleGeometric(rho=0.5), bounds=[[0, 1]] * 2, release="r")


def test_entry_point_runs_the_model():
    """dpinfer.posterior with a nig_regression entry: three methods, data-unit parameters."""
    from dpinfer.releases import ChainSettings

    rng = np.random.default_rng(11)
    X = rng.uniform(-1.0, 1.0, (120, 1))
    y = np.clip(0.5 * X[:, 0] + 0.3 * rng.standard_normal(120), -1.0, 1.0)
    z = Laplace(scale=2.0).release(rng, sufficient_statistics_p(X, y))
    settings = ChainSettings(seed=1, chains=4, burnin=200, keep=200, max_keep=200, draws=400)
    posts = posterior(z, name="e", settings=settings, **_entry(n=120))
    assert [p.method for p in posts] == ["mcmc_ind", "gibbs_ss_update", "gibbs_ss_prior"]
    for post in posts:
        assert post.model == "nig_regression" and post.chains.shape == (4, 200, 3)
        assert np.all(post.draws[:, 2] > 0) and np.all(post.naive[:, 2] > 0)


def test_a_longer_run_extends_the_shorter_one():
    """run_until_converged doubles keep on the same streams: each method's chains at keep 50 are
    the first 50 draws of its chains at keep 100 (so the reported draws do not depend on how
    often the check ran)."""
    X, y = _records(100, seed=12)
    mech = Laplace(scale=3.0)
    z = mech.release(np.random.default_rng(13), sufficient_statistics_p(X, y))
    kw = dict(bounds=_bounds_list(), release="ext", burnin=50, draws=10)
    short = nig_posteriors(z, 100, mech, keep=50, max_keep=50, **kw)
    longer = nig_posteriors(z, 100, mech, keep=100, max_keep=100, **kw)
    for a, b in zip(short, longer, strict=True):
        np.testing.assert_array_equal(a.chains, b.chains[:, :50], err_msg=a.method)
