"""Noise-aware posteriors of released counts and tables (dpinfer.releases.counts) and the
posterior core (dpinfer.releases.core): exact targets by quadrature or enumeration, with
tolerances in Monte Carlo standard errors, and the chain-extension contract."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from dpinfer import diagnostics
from dpinfer.mechanisms import DiscreteGaussian, DoubleGeometric, Gaussian, Laplace
from dpinfer.models.private_binomial import count_weights, mixture_weights
from dpinfer.releases.core import (
    Posterior,
    quantile_mcse,
    run_until_converged,
    summary_rows,
)
from dpinfer.releases.counts import binomial_posteriors, multinomial_posteriors
from tests.exact.releases_counts import enumerated_dirichlet_mixture
from tests.harness import assert_mean_matches

MECHANISMS = {
    "laplace": Laplace(2.0),
    "gaussian": Gaussian(2.5),
    "double_geometric": DoubleGeometric(0.35),
    "discrete_gaussian": DiscreteGaussian(2.5),
}


def _quadrature_posterior(z, n, a, b, mechanism):
    """(grid, density, cdf) of theta | z: Beta(a, b) x sum_x Binomial(x | n, theta) f(z - x) on a
    fine grid, normalised by the trapezoid rule (independent of the enumeration)."""
    grid = np.linspace(1e-6, 1 - 1e-6, 20001)
    x = np.arange(n + 1)
    lik = stats.binom.pmf(x[None, :], n, grid[:, None]) @ np.exp(mechanism.logpdf(z - x))
    dens = stats.beta.pdf(grid, a, b) * lik
    dens /= integrate.trapezoid(dens, grid)
    cdf = integrate.cumulative_trapezoid(dens, grid, initial=0.0)
    return grid, dens, cdf / cdf[-1]


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_binomial_enumeration_matches_quadrature_for_every_mechanism(name):
    """Exact i.i.d. draws: mean within 4 MCSE (sd / sqrt(draws)) of the quadrature mean, and a KS
    test of the draws' quadrature CDF values against U(0, 1) at level 0.001."""
    mech = MECHANISMS[name]
    n, a, b, z = 30, 2.0, 3.0, (8 if name in ("double_geometric", "discrete_gaussian") else 8.3)
    (exact, *_) = binomial_posteriors(z, n, mech, prior=(a, b), draws=20000, seed=7)
    assert exact.method == "exact" and exact.converged and exact.chains.shape == (1, 20000, 1)
    grid, dens, cdf = _quadrature_posterior(z, n, a, b, mech)
    mean = integrate.trapezoid(grid * dens, grid)
    theta = exact.draws[:, 0]
    mcse = theta.std(ddof=1) / np.sqrt(theta.size)
    assert abs(theta.mean() - mean) < 4 * mcse
    u = np.interp(theta, grid, cdf)
    assert diagnostics.ks_uniform(u) < diagnostics.ks_critical_value(u.size, alpha=0.001)


def test_count_weights_are_the_laplace_beta_mixture_weights():
    """For Laplace the general enumeration is the package's Beta mixture (private_binomial)."""
    mech = Laplace(3.0)
    np.testing.assert_allclose(
        count_weights(11.4, 40, 2.0, 5.0, mech.logpdf),
        mixture_weights(11.4, 40, 2.0, 5.0, 3.0),
        atol=1e-12,
    )


def test_laplace_chains_agree_with_the_enumeration():
    """Gibbs (a CLT for the count given theta: slack 0.003, as in tests/exact) and record-wise
    Algorithm 1 (exact target, no slack) against the exact posterior mean, within 4 MCSE."""
    posteriors = binomial_posteriors(15, 100, Laplace(5.0), prior=(10.0, 10.0), seed=3)
    by_method = {p.method: p for p in posteriors}
    assert set(by_method) == {"exact", "gibbs", "record_wise"}
    w = count_weights(15, 100, 10.0, 10.0, Laplace(5.0).logpdf)
    exact_mean = w @ ((10.0 + np.arange(101)) / 120.0)
    for method, slack in (("gibbs", 0.003), ("record_wise", 0.0)):
        post = by_method[method]
        assert post.converged and post.chains.shape[0] == 4
        assert_mean_matches(post.draws, [exact_mean], z_max=4.0, abs_slack=slack)
    assert_mean_matches(by_method["exact"].draws, [exact_mean], z_max=4.0)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_multinomial_latent_counts_match_the_enumerated_posterior(name):
    """K = 3, n = 6, every cell released: the latent-count MCMC's pooled means within 4 MCSE of
    the mixture over all compositions of 6 (tests/exact/releases_counts.py)."""
    mech = MECHANISMS[name]
    z = (
        np.array([1, 4, 0])
        if name in ("double_geometric", "discrete_gaussian")
        else [1.3, 4.2, -0.5]
    )
    alpha = np.array([1.0, 2.0, 1.5])
    posteriors = multinomial_posteriors(z, 6, mech, prior=alpha, keep=4000, seed=11)
    post = posteriors[0]
    assert post.method == "latent_counts" and post.converged
    assert post.parameters == ("p1", "p2", "p3")
    mean, _ = enumerated_dirichlet_mixture(z, 6, alpha, mech)
    assert_mean_matches(post.draws, mean, z_max=4.0)
    assert [p.method for p in posteriors] == (
        ["latent_counts", "gibbs"] if name == "laplace" else ["latent_counts"]
    )


def _ar1_chains(phi, chains=2):
    """run_chains(keep) of AR(1) chains from fixed streams: a longer call extends a shorter one."""

    def run_chains(keep):
        out = np.empty((chains, keep, 1))
        for c in range(chains):
            rng = np.random.default_rng([5, c])
            x = 0.0
            for t in range(keep):
                x = phi * x + rng.standard_normal()
                out[c, t, 0] = x
        return out

    return run_chains


def test_run_until_converged_extends_the_same_streams():
    """A call that stops early returns the prefix of the draws a longer call returns."""
    short = run_until_converged(_ar1_chains(0.5), keep=16, max_keep=16)
    long = run_until_converged(_ar1_chains(0.5), keep=16, max_keep=100000)
    assert short[4] == 16 and not short[3]
    assert long[3] and long[4] > 16 and (long[4] / 16).is_integer()
    np.testing.assert_array_equal(long[0][:, :16], short[0])
    assert np.all(long[1] <= 1.01) and np.all(long[2] >= 400)
    # the same for a registered sampler through the release API
    a = multinomial_posteriors([2, 3, 1], 6, Laplace(1.0), keep=64, max_keep=64, seed=2)[0]
    b = multinomial_posteriors([2, 3, 1], 6, Laplace(1.0), keep=64, max_keep=4096, seed=2)[0]
    np.testing.assert_array_equal(b.chains[:, :64], a.chains)


def test_run_until_converged_reports_not_converged_at_the_cap():
    chains, rhat, ess, converged, keep = run_until_converged(
        _ar1_chains(0.999), keep=8, max_keep=100
    )
    assert not converged and keep == 64 and chains.shape == (2, 64, 1)
    assert np.any(diagnostics.unconverged(rhat, ess, max_rhat=1.01, min_ess=400))
    with pytest.raises(ValueError, match="max_keep"):
        run_until_converged(_ar1_chains(0.5), keep=100, max_keep=50)


def test_summary_rows_carry_the_interval_its_error_and_the_naive_interval():
    rng = np.random.default_rng(0)
    chains = rng.standard_normal((2, 5000, 1))
    post = Posterior(
        "binomial", "exact", ("theta",), chains, np.ones(1), np.full(1, 1e4), True, 5000,
        rng.standard_normal((4000, 1)) + 1.0, 0.0,
    )  # fmt: skip
    (row,) = summary_rows(post, level=0.9)
    assert abs(row["lower"] + 1.645) < 0.1 and abs(row["upper"] - 1.645) < 0.1
    assert abs(row["naive_mean"] - 1.0) < 0.1 and row["naive_lower"] > row["lower"]
    # the quantile MCSE of iid normal draws: sqrt(p (1 - p) / N) / phi(z_p), within 25 %
    theory = np.sqrt(0.05 * 0.95 / 1e4) / stats.norm.pdf(1.645)
    assert abs(quantile_mcse(chains, 0.95)[0] / theory - 1.0) < 0.25
    assert row["method"] == "exact" and row["parameter"] == "theta" and row["converged"]


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: binomial_posteriors(3, 0, Laplace(1.0)), "n must be an integer >= 1"),
        (lambda: binomial_posteriors(3.5, 10, DoubleGeometric(0.5)), "not integer"),
        (lambda: binomial_posteriors([3, 4], 10, Laplace(1.0)), "expected 1 released"),
        (lambda: binomial_posteriors(3, 10, "laplace"), "mechanism must be one of"),
        (lambda: binomial_posteriors(3, 10, Laplace(1.0), prior=(1.0, 0.0)), "Beta prior"),
        (lambda: multinomial_posteriors([3], 10, Laplace(1.0)), "K >= 2"),
        (lambda: multinomial_posteriors([1, 2], 3, Gaussian(1.0), prior=[1, 1, 1]), "Dirichlet"),
        (lambda: multinomial_posteriors([1, 2.5], 3, DiscreteGaussian(1.0)), "not integer"),
    ],
)
def test_bad_inputs_are_refused_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
