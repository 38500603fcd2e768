"""Noise-aware posteriors of a released count (binomial) or a released table (multinomial).

The analyst holds the released values z and the mechanism (a record of
:mod:`dpinfer.mechanisms`: Laplace, Gaussian, DoubleGeometric, DiscreteGaussian) with the public n.

- binomial: z = x + noise, x ~ Binomial(n, theta), theta ~ Beta(a, b) (default Beta(1, 1), the
  uniform prior). Exact for every mechanism by enumeration (method ``exact``): p(x | z) is
  proportional to BetaBinomial(x | n, a, b) f(z - x) over x = 0..n (log space, the mechanism's
  ``logpdf``), and theta | x ~ Beta(a + x, b + n - x), so the draws are i.i.d. from the exact
  posterior. For Laplace the package's chains run beside it through :func:`run_until_converged`:
  bernstein2020's noise-aware Gibbs (``gibbs``, a CLT for x | theta) and ju2022's record-wise
  Algorithm 1 (``record_wise``, exact target).
- multinomial: z_k = x_k + noise for each of K cells, x ~ Multinomial(n, p), p ~ Dirichlet(alpha)
  (default alpha = 1, uniform on the simplex). Every mechanism: the latent-count MCMC
  (``latent_counts``, :mod:`dpinfer.samplers.latent_counts`, exact target). Laplace also:
  bernstein2020's noise-aware Gibbs (``gibbs``), which conditions on the first K - 1 released
  cells only (the thesis's release, whose last cell is n minus the others) and uses a CLT, so
  its posterior is wider than the exact one when all K cells carry information.

Naive (noise-ignoring) posteriors beside each: binomial Beta(a + z', b + n - z') with z' = z
clipped to [0, n] (:func:`dpinfer.samplers.conjugate.run_naive_binomial`); multinomial
Dirichlet(alpha + z') with z' = z clipped at 0 and rescaled to sum to n (all cells n / K if every
released value is <= 0), the released table read as if it were exact counts of n records.
"""

from __future__ import annotations

import numpy as np

from ..kernel_time import CpuTimer
from ..mechanisms import DiscreteGaussian, DoubleGeometric, Gaussian, Laplace
from ..models.expfam import Problem
from ..models.private_binomial import count_weights
from ..samplers.conjugate import run_naive_binomial
from .core import Posterior, chain_rngs, converged_chains, iid_diagnostics

__all__ = [
    "MECHANISM_TYPES",
    "exact_binomial_draws",
    "naive_multinomial_concentrations",
    "binomial_posteriors",
    "multinomial_posteriors",
]

MECHANISM_TYPES = (Laplace, Gaussian, DoubleGeometric, DiscreteGaussian)
_DISCRETE = (DoubleGeometric, DiscreteGaussian)


# ----------------------------------------------------------------------------- validation
def _check_n(n, release: str) -> int:
    if isinstance(n, bool) or not float(n).is_integer() or int(n) < 1:
        raise ValueError(f"release {release!r}: n must be an integer >= 1")
    return int(n)


def _check_mechanism(mechanism, release: str) -> None:
    if not isinstance(mechanism, MECHANISM_TYPES):
        names = ", ".join(t.__name__ for t in MECHANISM_TYPES)
        raise TypeError(
            f"release {release!r}: mechanism must be one of {names} (dpinfer.mechanisms), "
            f"got a {type(mechanism).__name__}"
        )


def _check_released(released, length: int, mechanism, release: str) -> np.ndarray:
    z = np.asarray(released, dtype=float).ravel()
    if z.shape[0] != length:
        raise ValueError(
            f"release {release!r}: expected {length} released values, got {z.shape[0]}"
        )
    if not np.all(np.isfinite(z)):
        raise ValueError(f"release {release!r}: released values must be finite")
    if isinstance(mechanism, _DISCRETE) and not np.all(z == np.round(z)):
        bad = int(np.sum(z != np.round(z)))
        raise ValueError(
            f"release {release!r}: {bad} released value(s) not integer, but the "
            f"{type(mechanism).__name__} mechanism releases integers"
        )
    return z


def _check_prior(prior, length: int, what: str, release: str) -> np.ndarray:
    p = np.asarray(prior, dtype=float).ravel()
    if p.shape[0] != length or not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError(f"release {release!r}: the {what} prior needs {length} positive values")
    return p


# ----------------------------------------------------------------------------- binomial
def exact_binomial_draws(rng, size: int, released: float, n: int, a: float, b: float, mechanism):
    """``size`` i.i.d. draws of theta | z: a count s from p(s | z)
    (:func:`dpinfer.models.private_binomial.count_weights`), then theta from its Beta."""
    w = count_weights(released, n, a, b, mechanism.logpdf)
    x = rng.choice(n + 1, size=int(size), p=w).astype(float)
    return rng.beta(a + x, b + n - x)


def _mcmc_posterior(model, method, problem, parameters, naive, settings, **options) -> Posterior:
    seed, release, chains, keep, max_keep, burnin = settings
    draws, rhat, ess, converged, keep, seconds = converged_chains(
        model,
        method,
        problem,
        lambda: chain_rngs(seed, release, method, chains),
        burnin=burnin,
        keep=keep,
        max_keep=max_keep,
        options=options,
    )
    return Posterior(model, method, parameters, draws, rhat, ess, converged, keep, naive, seconds)


def binomial_posteriors(
    released,
    n: int,
    mechanism,
    *,
    prior=(1.0, 1.0),
    release: str = "binomial",
    seed: int = 0,
    draws: int = 4000,
    chains: int = 4,
    keep: int = 1000,
    max_keep: int = 64000,
    burnin: int = 1000,
) -> list[Posterior]:
    """Posteriors of theta given a released count z (module docstring): ``exact`` for every
    mechanism (``draws`` i.i.d. draws), then for Laplace ``gibbs`` and ``record_wise``
    (``chains`` chains, ``burnin`` discarded, ``keep`` doubled up to ``max_keep`` until they
    converge). ``naive``: ``draws`` draws of Beta(a + z', b + n - z'), z' = z clipped to [0, n].
    Streams: :func:`dpinfer.releases.core.chain_rngs` of (seed, release, method, chain)."""
    _check_mechanism(mechanism, release)
    n = _check_n(n, release)
    z = float(_check_released(released, 1, mechanism, release)[0])
    a, b = (float(v) for v in _check_prior(prior, 2, "Beta", release))
    problem = Problem(z, n, (a, b), mechanism)
    naive_rng = chain_rngs(seed, release, "naive", 1)[0]
    naive = run_naive_binomial(problem, naive_rng, burnin=0, keep=draws).kept
    rng = chain_rngs(seed, release, "exact", 1)[0]
    with CpuTimer() as timer:
        exact = exact_binomial_draws(rng, draws, z, n, a, b, mechanism)[None, :, None]
    rhat, ess, converged = iid_diagnostics(exact)
    out = [
        Posterior(
            "binomial",
            "exact",
            ("theta",),
            exact,
            rhat,
            ess,
            converged,
            draws,
            naive,
            timer.seconds,
        )
    ]
    if isinstance(mechanism, Laplace):
        settings = (seed, release, chains, keep, max_keep, burnin)
        for method in ("gibbs", "record_wise"):
            out.append(_mcmc_posterior("binomial", method, problem, ("theta",), naive, settings))
    return out


# ----------------------------------------------------------------------------- multinomial
def naive_multinomial_concentrations(released, n: int, alpha) -> np.ndarray:
    """alpha + z', z' = released values clipped at 0 and rescaled to sum to n (n / K each when
    none is positive): the released table taken as exact counts of the n records."""
    z = np.clip(np.asarray(released, dtype=float), 0.0, None)
    total = z.sum()
    counts = z * (n / total) if total > 0 else np.full(z.shape, n / z.shape[0])
    return np.asarray(alpha, dtype=float) + counts


def multinomial_posteriors(
    released,
    n: int,
    mechanism,
    *,
    prior=None,
    release: str = "multinomial",
    seed: int = 0,
    draws: int = 4000,
    chains: int = 4,
    keep: int = 1000,
    max_keep: int = 64000,
    burnin: int = 1000,
) -> list[Posterior]:
    """Posteriors of the K cell probabilities given a released table z of length K (module
    docstring): ``latent_counts`` for every mechanism, and for Laplace ``gibbs`` (on the first
    K - 1 cells). ``prior``: the K Dirichlet concentrations (default all 1). ``naive``: ``draws``
    draws of Dirichlet(:func:`naive_multinomial_concentrations`)."""
    _check_mechanism(mechanism, release)
    n = _check_n(n, release)
    z_raw = np.asarray(released, dtype=float).ravel()
    K = z_raw.shape[0]
    if K < 2:
        raise ValueError(f"release {release!r}: a table needs K >= 2 cells, got {K}")
    z = _check_released(z_raw, K, mechanism, release)
    alpha = _check_prior(np.ones(K) if prior is None else prior, K, "Dirichlet", release)
    parameters = tuple(f"p{k + 1}" for k in range(K))
    naive_rng = chain_rngs(seed, release, "naive", 1)[0]
    naive = naive_rng.dirichlet(naive_multinomial_concentrations(z, n, alpha), size=draws)
    settings = (seed, release, chains, keep, max_keep, burnin)
    out = [
        _mcmc_posterior(
            "multinomial",
            "latent_counts",
            Problem(z, n, alpha, mechanism),
            parameters,
            naive,
            settings,
        )
    ]
    if isinstance(mechanism, Laplace):
        gibbs_problem = Problem(z[:-1], n, alpha, mechanism)
        out.append(
            _mcmc_posterior("multinomial", "gibbs", gibbs_problem, parameters, naive, settings)
        )
    return out
