"""The exact posterior of a binomial proportion from a Laplace-noised count.

Model (bernstein2020 Chapter 4's binomial; the comparison study's problem 2): theta ~ Beta(a, b),
s ~ Binomial(n, theta) (n Bernoulli records), released y = s + Laplace(scale). Summing over the
n + 1 possible counts,

    p(theta | y) = sum_k w_k Beta(theta; a + k, b + n - k),
    w_k proportional to BetaBinomial(k; n, a, b) exp(-|y - k| / scale),

a Beta mixture with exact weights (computed in log space). Its mean, sd and CDF are closed
forms, and exact draws take a weight index then a Beta draw: O(n) per posterior, no MCMC.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betainc, betaln, gammaln, logsumexp

__all__ = ["count_weights", "mixture_weights", "exact_moments", "exact_cdf", "exact_draws"]


def count_weights(y: float, n: int, a: float, b: float, noise_logpdf) -> np.ndarray:
    """Normalised weights w_0..w_n of the count s given the release y = s + noise, for any noise
    law (``noise_logpdf``: its log-density, vectorised, up to a constant): BetaBinomial(s | n, a, b)
    f(y - s) in log space. theta | y is the Beta mixture sum_s w_s Beta(a + s, b + n - s)."""
    k = np.arange(n + 1, dtype=float)
    log_w = (
        gammaln(n + 1.0)
        - gammaln(k + 1.0)
        - gammaln(n - k + 1.0)
        + betaln(a + k, b + n - k)
        - betaln(a, b)
        + noise_logpdf(float(y) - k)
    )
    w = np.exp(log_w - logsumexp(log_w))
    return w / w.sum()  # exact normalisation after the exp (logsumexp rounds at large |log w|)


def mixture_weights(y: float, n: int, a: float, b: float, scale: float) -> np.ndarray:
    """:func:`count_weights` of Laplace(scale) noise."""
    if n < 1 or not (a > 0 and b > 0 and scale > 0):
        raise ValueError("mixture_weights: need n >= 1, a, b > 0 and scale > 0")
    return count_weights(y, n, a, b, lambda e: -(np.abs(e) / float(scale)))


def exact_moments(y: float, n: int, a: float, b: float, scale: float) -> tuple[float, float]:
    """Posterior mean and sd of theta, from the mixture's first two moments."""
    w = mixture_weights(y, n, a, b, scale)
    k = np.arange(n + 1, dtype=float)
    c = a + b + n
    m1 = float(w @ ((a + k) / c))
    m2 = float(w @ ((a + k) * (a + k + 1.0) / (c * (c + 1.0))))
    return m1, float(np.sqrt(max(m2 - m1 * m1, 0.0)))


def exact_cdf(theta, y: float, n: int, a: float, b: float, scale: float) -> np.ndarray:
    """P(Theta <= theta | y) for an array of theta values."""
    w = mixture_weights(y, n, a, b, scale)
    k = np.arange(n + 1, dtype=float)
    t = np.atleast_1d(np.asarray(theta, dtype=float))
    return betainc(a + k[None, :], b + n - k[None, :], t[:, None]) @ w


def exact_draws(
    rng: np.random.Generator, size: int, y: float, n: int, a: float, b: float, scale: float
) -> np.ndarray:
    """``size`` independent draws of theta | y: the count from the weights, then its Beta."""
    w = mixture_weights(y, n, a, b, scale)
    k = rng.choice(n + 1, size=int(size), p=w).astype(float)
    return rng.beta(a + k, b + n - k)
