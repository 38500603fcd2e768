"""Exponential-family models of Chapter 4 of bernstein2020: data, conjugate updates, moments.

Three models, each with its conjugate prior (values from the released code, FACTS.md):

- binomial: x_i ~ Bernoulli(theta), theta ~ Beta(a, b); s = sum x_i in {0..n}; Delta = 1.
- multinomial: x_i ~ Categorical(p), p ~ Dirichlet(alpha); s = the first K-1 category counts;
  Delta = 1 per released count (thesis/code value, see docs/deviations.md).
- exponential: x_i ~ Exp(rate lam), lam ~ Gamma(shape, rate); s = sum x_i is unbounded, so the
  release uses the truncated statistic s_hat = sum of x_i inside [a, b] (Section 4.3.1).

Conjugate-Update (Appendix B.1.1) is written per model in closed form. The truncated-family
mean and variance of Lemma 1 (Eqs. 4.3, 4.4) are exact closed forms for the exponential family;
``tests/test_bernstein2020_ch4.py`` checks them against quadrature and against finite
differences of the truncated log-partition function A(eta) + log(F(w) - F(v)).
The samplers over these models are in :mod:`dpinfer.samplers.noise_aware_gibbs` (noise-aware),
:mod:`dpinfer.samplers.conjugate` (Naive, Non-private) and :mod:`dpinfer.samplers.ops`; the
registry calls them as ``run(problem, rng, *, burnin, keep, **options) -> Chain`` with
:class:`Problem` (options: ``bounds`` and ``thin`` of the truncated exponential's Gibbs sampler,
OPS's ``support_lower`` and ``tempering``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = [
    "Problem",
    "beta_posterior",
    "dirichlet_posterior",
    "gamma_posterior",
    "truncated_exponential_moments",
    "rs_clt",
    "prior_predictive_bounds",
    "oracle_bounds",
    "truncation_sensitivity",
    "simulate_binomial",
    "simulate_multinomial",
    "simulate_exponential",
]


@dataclass(frozen=True)
class Problem:
    """What a sampler of these models conditions on: the statistic it sees (the release y for
    the private methods, the confidential s for Non-Private and OPS), the public n, the prior
    ((a, b), Dirichlet alpha or (shape, rate)) and the release's mechanism."""

    statistic: object
    n: int
    prior: object
    mechanism: object = None


# ----------------------------------------------------------------------------- conjugate updates
def beta_posterior(a: float, b: float, s: float, n: int) -> tuple[float, float]:
    """Beta(a, b) prior, s successes in n Bernoulli trials -> Beta(a + s, b + n - s)."""
    return a + s, b + n - s


def dirichlet_posterior(alpha, counts) -> np.ndarray:
    """Dirichlet(alpha) prior, category counts (all K) -> Dirichlet(alpha + counts)."""
    return np.asarray(alpha, dtype=float) + np.asarray(counts, dtype=float)


def gamma_posterior(shape: float, rate: float, s: float, n: int) -> tuple[float, float]:
    """Gamma(shape, rate) prior on an exponential rate,
    sum s of n draws -> Gamma(shape+n, rate+s)."""
    return shape + n, rate + s


# ---------------------------------------------------------------------------- truncated exponential
@njit(cache=True)
def truncated_exponential_moments(lam, v, w):
    """Mass q, mean and variance of t(x) = x for x ~ Exp(lam) restricted to [v, w] (Lemma 1).

    ``w`` may be ``inf``. Closed forms: with u = lam (w - v) and r = u e^{-u} / (1 - e^{-u}),
    mean = v + (1 - r) / lam and var = (1 - u^2 e^{-u} / (1 - e^{-u})^2) / lam^2, which is
    A-hat'(eta) and A-hat''(eta) for A-hat = A + log(F(w) - F(v)). Series for tiny u avoid
    cancellation. Returns (q, mean, var); q = 0 gives mean v and var 0.
    """
    if math.isinf(w):
        q = math.exp(-lam * v)
        return q, v + 1.0 / lam, 1.0 / (lam * lam)
    length = w - v
    u = lam * length
    q = math.exp(-lam * v) * (-math.expm1(-u))
    if u <= 0.0:
        return 0.0, v, 0.0
    if u < 1e-3:
        mean = v + length * (0.5 - u / 12.0 + u**3 / 720.0)
        var = length * length * (1.0 / 12.0 - u * u / 240.0)
        return q, mean, var
    em = -math.expm1(-u)  # 1 - e^{-u}
    r = u * math.exp(-u) / em
    mean = v + (1.0 - r) / lam
    var = (1.0 - u * u * math.exp(-u) / (em * em)) / (lam * lam)
    return q, mean, var


@njit(cache=True)
def rs_clt(lam, v, w, n):
    """Random-sum CLT (Proposition 5; Algorithm 3 'RS-CLT' with m = n q mu_hat).

    Mean m = n q mu_hat and variance V = n q Sigma_hat + n q (1 - q) mu_hat^2 of the sum of
    t(x_i) over the individuals whose x_i falls in [v, w].
    """
    q, mu, var = truncated_exponential_moments(lam, v, w)
    m = n * q * mu
    V = n * q * var + n * q * (1.0 - q) * mu * mu
    return m, V


def prior_predictive_bounds(shape: float, rate: float, mass: float = 0.95) -> tuple[float, float]:
    """Central ``mass`` interval of the prior predictive of x (a Lomax law).

    With lam ~ Gamma(shape, rate) and x | lam ~ Exp(lam), P(x > t) = (rate / (rate + t))^shape,
    so the p-quantile is rate ((1 - p)^(-1/shape) - 1). Fixed before seeing any data: public.
    """
    lo_p, hi_p = (1.0 - mass) / 2.0, (1.0 + mass) / 2.0
    a = rate * ((1.0 - lo_p) ** (-1.0 / shape) - 1.0)
    b = rate * ((1.0 - hi_p) ** (-1.0 / shape) - 1.0)
    return float(a), float(b)


def oracle_bounds(lam: float, mass: float = 0.95) -> tuple[float, float]:
    """Central ``mass`` interval of Exp(lam_true): what the released code used (an oracle)."""
    lo_p, hi_p = (1.0 - mass) / 2.0, (1.0 + mass) / 2.0
    return float(-math.log1p(-lo_p) / lam), float(-math.log1p(-hi_p) / lam)


def truncation_sensitivity(a: float, b: float, rule: str = "thesis") -> float:
    """Sensitivity of s_hat = sum 1[a <= x <= b] x under replace-one neighbours.

    ``thesis``: the bound of Section 4.3.1 / B.3, max{max |t|, range} = max(|a|, |b|, b - a) (= b
    for 0 <= a < b). ``code``: b - a, what the released code used.
    """
    if not b > a:
        raise ValueError(f"need a < b, got [{a}, {b}]")
    if rule == "thesis":
        return float(max(abs(a), abs(b), b - a))
    if rule == "code":
        return float(b - a)
    raise ValueError(f"unknown sensitivity rule {rule!r}")


# ----------------------------------------------------------------------------- data
def simulate_binomial(rng: np.random.Generator, n: int, a: float, b: float):
    """theta ~ Beta(a, b), s ~ Binomial(n, theta) (the sum of n Bernoulli records)."""
    theta = rng.beta(a, b)
    return float(theta), float(rng.binomial(n, theta))


def simulate_multinomial(rng: np.random.Generator, n: int, alpha):
    """p ~ Dirichlet(alpha), all K counts ~ Multinomial(n, p)."""
    p = rng.dirichlet(np.asarray(alpha, dtype=float))
    return p, rng.multinomial(n, p).astype(float)


def simulate_exponential(rng: np.random.Generator, n: int, shape: float, rate: float):
    """lam ~ Gamma(shape, rate), x_1..x_n ~ Exp(lam). Returns (lam, x)."""
    lam = rng.gamma(shape, 1.0 / rate)
    return float(lam), rng.exponential(1.0 / lam, size=n)
