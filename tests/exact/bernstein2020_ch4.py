"""Exact targets of the bernstein2020 Chapter-4 samplers
(noise-aware Gibbs, Naive, Non-private, OPS).

- binomial Gibbs: p(theta | y) by quadrature over theta of Beta(theta) sum_s Binom(s) Lap(y - s);
- multinomial Gibbs: enumeration of every count vector (a Dirichlet mixture);
- truncated exponential Gibbs: quadrature over lam with p(y | lam) by common-random-number Monte
  Carlo (n = 60) and by Fourier inversion of the exact characteristic function (n = 10000);
- OPS: the tempered Beta law restricted to [a0, 1 - a0] (scipy), for both temperings, at a
  tempering exponent large enough to tell them (and s from n - s) apart;
- Naive / Non-private: their conjugate posteriors (Beta, Dirichlet, Gamma), including the
  released code's guards (clipping, floors).

The noise-aware samplers use a CLT for p(s | theta), so their means and sds carry a slack for
that approximation (measured: well inside it); everything else is ESS-gated by the harness.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, stats

from dpinfer.mechanisms import Laplace
from dpinfer.models import expfam
from dpinfer.samplers import conjugate as baselines
from dpinfer.samplers import noise_aware_gibbs as nag
from dpinfer.samplers.ops import ops_beta_parameters, ops_exponent, run_ops_binomial

from ..harness import ExactCase

__all__ = ["CASES", "binomial_exact_posterior", "exact_truncated_likelihood"]


def _grid_moments(grid, dens):
    dens = dens / integrate.trapezoid(dens, grid)
    mean = integrate.trapezoid(grid * dens, grid)
    return mean, math.sqrt(integrate.trapezoid((grid - mean) ** 2 * dens, grid))


# ----------------------------------------------------------------------------- noise-aware Gibbs
def binomial_exact_posterior(y, n, a, b, scale):
    """(mean, sd) of p(theta | y) proportional to Beta(theta) sum_s Binom(s | n, theta)
    Lap(y | s)."""
    grid = np.linspace(1e-5, 1 - 1e-5, 4001)
    s = np.arange(n + 1)
    lik = stats.binom.pmf(s[None, :], n, grid[:, None]) @ stats.laplace.pdf(y - s, scale=scale)
    return _grid_moments(grid, stats.beta.pdf(grid, a, b) * lik)


def binomial_gibbs() -> ExactCase:
    n, a, b, y = 100, 10.0, 10.0, 15.0
    mech = Laplace.calibrated(0.2, 1.0)  # scale 5
    mean, sd = binomial_exact_posterior(y, n, a, b, mech.scale)
    chain = nag.run_binomial(
        expfam.Problem(y, n, (a, b), mech), burnin=2000, keep=60000, rng=np.random.default_rng(1)
    )
    # slack: the CLT for Binomial(100, theta) (seed 1: mean off by 0.0019 = 1.9 MCSE, sd by 1%)
    return ExactCase(chain.kept, [mean], [sd], mean_slack=0.003, sd_slack=0.02 * sd)


def _small_binomial():
    """n = 30 with noise of scale 2 (epsilon = 0.5): the count posterior is far from a normal,
    so a sampler that used a CLT or mis-weighted the release would fail here."""
    return 30, 2.0, 3.0, 8.3, Laplace.calibrated(0.5, 1.0)


def binomial_record_wise() -> ExactCase:
    """ju2022's Algorithm 1 on the binomial count release: no approximation, no slack."""
    from dpinfer.samplers.record_wise_binomial import run_record_wise_binomial

    n, a, b, y, mech = _small_binomial()
    mean, sd = binomial_exact_posterior(y, n, a, b, mech.scale)
    chain = run_record_wise_binomial(
        expfam.Problem(y, n, (a, b), mech), burnin=1000, keep=40000, rng=np.random.default_rng(3)
    )
    return ExactCase(chain.kept, [mean], [sd])


def binomial_exact() -> ExactCase:
    """Independent draws of the Beta mixture (models.private_binomial) against quadrature."""
    n, a, b, y, mech = _small_binomial()
    mean, sd = binomial_exact_posterior(y, n, a, b, mech.scale)
    chain = baselines.run_exact_binomial(
        expfam.Problem(y, n, (a, b), mech), burnin=0, keep=40000, rng=np.random.default_rng(4)
    )
    return ExactCase(chain.kept, [mean], [sd])


def multinomial_gibbs() -> ExactCase:
    """Exact posterior = mixture over all counts c of Dir(alpha + c), weights DirMult(c)
    Lap(y | c)."""
    n, alpha = 60, np.array([5.0, 5.0, 5.0])
    mech = Laplace.calibrated(0.2, 1.0)
    y = np.array([6.0, 30.0])
    c1, c2 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = c1 + c2 <= n
    c = np.stack([c1[ok], c2[ok], n - c1[ok] - c2[ok]], axis=1).astype(float)
    logw = (
        stats.dirichlet_multinomial.logpmf(c, alpha, n)
        + mech.logpdf(y[0] - c[:, 0])
        + mech.logpdf(y[1] - c[:, 1])
    )
    w = np.exp(logw - logw.max())
    w /= w.sum()
    post = alpha + c
    tot = post.sum(axis=1, keepdims=True)
    mean = w @ (post / tot)
    sd = np.sqrt(w @ (post * (post + 1) / (tot * (tot + 1))) - mean**2)
    chain = nag.run_multinomial(
        expfam.Problem(y, n, alpha, mech), burnin=2000, keep=60000, rng=np.random.default_rng(2)
    )
    # slack: the CLT for the counts (seed 2: means within 1.3 MCSE, sds within 0.5%)
    return ExactCase(chain.kept, mean, sd, mean_slack=0.003, sd_slack=0.02 * sd)


def exact_truncated_likelihood(y, lam, n, a, b, scale):
    """p(y | lam) for y = sum of x_i in [a, b] + Lap(scale), x_i ~ Exp(lam), by Fourier inversion.

    phi(t) = (1 - q + lam / (lam - i t) (e^{(i t - lam) a} - e^{(i t - lam) b}))^n is the exact
    characteristic function of the truncated sum and 1 / (1 + scale^2 t^2) that of the noise.
    """
    q, _, _ = expfam.truncated_exponential_moments(lam, a, b)
    _, v_c = expfam.rs_clt(lam, a, b, n)
    t = np.linspace(0.0, 14.0 / math.sqrt(v_c), 20001)
    phi1 = (
        1.0 - q + lam / (lam - 1j * t) * (np.exp((1j * t - lam) * a) - np.exp((1j * t - lam) * b))
    )
    f = np.real(np.exp(n * np.log(phi1) - 1j * t * y)) / (1.0 + scale * scale * t * t)
    return max(integrate.trapezoid(f, t) / math.pi, 0.0)


def _truncated_exponential_small_n() -> ExactCase:
    """n = 60: p(y | lam) = E[Lap(y - s_hat)] by common-random-number Monte Carlo over the data."""
    n, y = 60, 11.0
    a, b = expfam.prior_predictive_bounds(8.0, 2.0)
    mech = Laplace.calibrated(0.2, expfam.truncation_sensitivity(a, b))
    e = np.random.default_rng(4).exponential(size=(20000, n))
    grid = np.linspace(0.5, 12.0, 400)
    lik = np.empty(grid.size)
    for i, lam in enumerate(grid):
        x = e / lam
        s_hat = np.where((x >= a) & (x <= b), x, 0.0).sum(axis=1)
        lik[i] = np.exp(mech.logpdf(y - s_hat)).mean()
    mean, sd = _grid_moments(grid, stats.gamma.pdf(grid, 8.0, scale=0.5) * lik)
    chain = nag.run_truncated_exponential(
        expfam.Problem(y, n, (8.0, 2.0), mech),
        bounds=(a, b),
        burnin=2000,
        keep=60000,
        rng=np.random.default_rng(3),
    )
    # slack: the RS-CLT at n = 60 and the Monte Carlo likelihood
    return ExactCase(chain.kept, [mean], [sd], mean_slack=0.02 * mean, sd_slack=0.04 * sd)


def _truncated_exponential_large_n() -> ExactCase:
    """n = 10000, eps = 0.1, y above the largest centre mean max_lam m_c(lam) (a calibration trial).

    Drawing s_l + s_u independently of s_c (the thesis's process) let the chain drift from
    lam ~ 1.6 to lam ~ 0.14, where the exact posterior has mass ~1e-9. Started from the prior.
    """
    n, y = 10000, 3518.878
    a, b = expfam.prior_predictive_bounds(8.0, 2.0)
    mech = Laplace.calibrated(0.1, expfam.truncation_sensitivity(a, b))
    grid = np.linspace(0.9, 2.6, 400)
    lik = np.array([exact_truncated_likelihood(y, lam, n, a, b, mech.scale) for lam in grid])
    mean, sd = _grid_moments(grid, stats.gamma.pdf(grid, 8.0, scale=0.5) * lik)
    assert abs(mean - 1.597) < 0.01 and abs(sd - 0.143) < 0.005, (mean, sd)
    chain = nag.run_truncated_exponential(
        expfam.Problem(y, n, (8.0, 2.0), mech),
        bounds=(a, b),
        burnin=1000,
        keep=5000,
        rng=np.random.default_rng(5),
        thin=20,
        init="prior",
    )
    return ExactCase(chain.kept, [mean], [sd], mean_slack=0.01, sd_slack=0.05 * sd)


def truncated_exponential_gibbs() -> list[ExactCase]:
    return [_truncated_exponential_small_n(), _truncated_exponential_large_n()]


# ----------------------------------------------------------------------------- OPS
def _truncated_beta_moments(pa, pb, lo, hi):
    d = stats.beta(pa, pb)
    mass = d.cdf(hi) - d.cdf(lo)
    m1 = d.expect(lambda x: x, lb=lo, ub=hi) / mass
    m2 = d.expect(lambda x: x * x, lb=lo, ub=hi) / mass
    return m1, math.sqrt(m2 - m1 * m1)


def ops_binomial() -> list[ExactCase]:
    """Both temperings at t ~ 0.011 (epsilon 2000 over 20000 draws), s = 30 of n = 100, so the
    target is asymmetric (s and n - s swapped would move the mean), and at the thesis's
    epsilon = 0.1 (t ~ 1e-6: posterior tempering ~ uniform, likelihood tempering ~ the prior)."""
    s, n, prior, a0, keep = 30.0, 100, (10.0, 10.0), 0.1, 20000
    out = []
    for eps in (2000.0, 0.1):
        mech = Laplace.calibrated(eps, 1.0)
        for i, tempering in enumerate(("likelihood", "posterior")):
            t = ops_exponent(mech.epsilon, keep, a0)
            mean, sd = _truncated_beta_moments(
                *ops_beta_parameters(s, n, prior, t, tempering), a0, 1 - a0
            )
            chain = run_ops_binomial(
                expfam.Problem(s, n, prior, mech),
                burnin=0,
                keep=keep,
                rng=np.random.default_rng(10 + i),
                support_lower=a0,
                tempering=tempering,
            )
            assert chain.kept.min() >= a0 and chain.kept.max() <= 1 - a0
            out.append(ExactCase(chain.kept, [mean], [sd]))
    return out


# ----------------------------------------------------------------------------- conjugate baselines
_KEEP = 20000
_MECH = Laplace.calibrated(0.1, 1.0)


def _beta_case(run, statistic, n, prior, exact_statistic, seed) -> ExactCase:
    a, b = expfam.beta_posterior(*prior, exact_statistic, n)
    problem = expfam.Problem(statistic, n, prior, _MECH)
    chain = run(problem, np.random.default_rng(seed), burnin=0, keep=_KEEP)
    return ExactCase(chain.kept, [stats.beta.mean(a, b)], [stats.beta.std(a, b)])


def naive_binomial() -> list[ExactCase]:
    """The noisy count as if exact; clipped to [0, n] (a release below 0 and one inside)."""
    return [
        _beta_case(baselines.run_naive_binomial, -7.5, 50, (10.0, 10.0), 0.0, 20),
        _beta_case(baselines.run_naive_binomial, 12.3, 50, (10.0, 10.0), 12.3, 21),
    ]


def non_private_binomial() -> ExactCase:
    return _beta_case(baselines.run_non_private_binomial, 12.0, 50, (10.0, 10.0), 12.0, 22)


def _dirichlet_case(run, statistic, n, alpha, exact_conc, seed, with_sd=True) -> ExactCase:
    problem = expfam.Problem(statistic, n, alpha, _MECH)
    chain = run(problem, np.random.default_rng(seed), burnin=0, keep=_KEEP)
    d = stats.dirichlet(exact_conc)
    return ExactCase(chain.kept, d.mean(), np.sqrt(d.var()) if with_sd else None)


def naive_multinomial() -> list[ExactCase]:
    """Dirichlet(alpha + [y, n - sum y]) floored at 1e-3 (one noisy count far below 0: the
    floored coordinate is so heavy-tailed that only means are compared there)."""
    alpha = np.array([5.0, 5.0, 5.0])
    return [
        _dirichlet_case(
            baselines.run_naive_multinomial,
            np.array([-9.0, 20.0]),
            40,
            alpha,
            np.array([1e-3, 25.0, 34.0]),
            23,
            with_sd=False,
        ),
        _dirichlet_case(
            baselines.run_naive_multinomial,
            np.array([7.4, 20.0]),
            40,
            alpha,
            np.array([12.4, 25.0, 17.6]),
            24,
        ),
    ]


def non_private_multinomial() -> ExactCase:
    alpha = np.array([5.0, 5.0, 5.0])
    return _dirichlet_case(
        baselines.run_non_private_multinomial,
        np.array([7.0, 20.0]),
        40,
        alpha,
        np.array([12.0, 25.0, 18.0]),
        25,
    )


def _gamma_case(run, statistic, n, prior, exact_statistic, seed) -> ExactCase:
    shape, rate = expfam.gamma_posterior(*prior, exact_statistic, n)
    problem = expfam.Problem(statistic, n, prior, _MECH)
    chain = run(problem, np.random.default_rng(seed), burnin=0, keep=_KEEP)
    d = stats.gamma(shape, scale=1.0 / rate)
    return ExactCase(chain.kept, [d.mean()], [d.std()])


def naive_exponential() -> list[ExactCase]:
    """Gamma(shape + n, rate + max(y, 0)) (a negative noisy sum and a positive one)."""
    return [
        _gamma_case(baselines.run_naive_exponential, -3.0, 20, (8.0, 2.0), 0.0, 26),
        _gamma_case(baselines.run_naive_exponential, 6.5, 20, (8.0, 2.0), 6.5, 27),
    ]


def non_private_exponential() -> ExactCase:
    return _gamma_case(baselines.run_non_private_exponential, 6.5, 20, (8.0, 2.0), 6.5, 28)


CASES = {
    ("binomial", "gibbs"): binomial_gibbs,
    ("binomial", "naive"): naive_binomial,
    ("binomial", "non_private"): non_private_binomial,
    ("binomial", "ops"): ops_binomial,
    ("binomial", "record_wise"): binomial_record_wise,
    ("binomial", "exact"): binomial_exact,
    ("multinomial", "gibbs"): multinomial_gibbs,
    ("multinomial", "naive"): naive_multinomial,
    ("multinomial", "non_private"): non_private_multinomial,
    ("exponential", "gibbs"): truncated_exponential_gibbs,
    ("exponential", "naive"): naive_exponential,
    ("exponential", "non_private"): non_private_exponential,
}
