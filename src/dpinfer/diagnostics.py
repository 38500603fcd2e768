"""Summaries of posterior draws that every study reuses.

- posterior means and central credible intervals; coverage with its binomial standard error
- acceptance summaries of data-augmentation samplers
- unbiased MMD^2 with a Gaussian kernel (median-heuristic or fixed bandwidth)
- calibration: quantile of the true parameter in its posterior sample, and the KS statistic
  of those quantiles against U(0, 1)
- convergence: rank-normalised split R-hat and bulk ESS over one or several chains (Vehtari,
  Gelman, Simpson, Carpenter & Buerkner 2021), effective sample size and Monte Carlo standard
  errors
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "posterior_mean",
    "central_interval",
    "covers",
    "coverage",
    "binomial_se",
    "acceptance_summary",
    "median_heuristic",
    "paired_median_bandwidth",
    "mmd2_unbiased",
    "MmdReference",
    "quantile_of_truth",
    "ks_uniform",
    "ks_critical_value",
    "split_rhat",
    "bulk_ess",
    "effective_sample_size",
    "degenerate",
    "unconverged",
    "mc_standard_error",
    "average_ranks",
    "mean_kernel",
]


def _as_draws(draws) -> np.ndarray:
    a = np.asarray(draws, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] == 0:
        raise ValueError(f"draws must be (n_draws,) or (n_draws, dim) and non-empty, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("draws contain NaN or inf")
    return a


def posterior_mean(draws) -> np.ndarray:
    """Mean over draws (axis 0)."""
    return _as_draws(draws).mean(axis=0)


def central_interval(draws, level: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed credible interval: the (1-level)/2 and (1+level)/2 sample quantiles."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    a = _as_draws(draws)
    lo, hi = np.quantile(a, [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=0)
    return lo, hi


def covers(lower, upper, truth) -> np.ndarray:
    """Whether each interval [lower, upper] contains the true value (closed interval)."""
    lower, upper, truth = (np.asarray(v, dtype=float) for v in (lower, upper, truth))
    return (lower <= truth) & (truth <= upper)


def coverage(hits) -> np.ndarray:
    """Empirical coverage: mean of boolean hits over replicates (axis 0)."""
    h = np.asarray(hits, dtype=float)
    if h.shape[0] == 0:
        raise ValueError("coverage of zero replicates")
    return h.mean(axis=0)


def binomial_se(p, n: int) -> np.ndarray:
    """Standard error sqrt(p (1-p) / n) of a proportion estimated from n replicates."""
    p = np.asarray(p, dtype=float)
    return np.sqrt(np.clip(p * (1.0 - p), 0.0, None) / n)


def acceptance_summary(per_sweep) -> dict:
    """Mean and minimum of per-sweep acceptance rates (fraction of records accepted)."""
    a = np.asarray(per_sweep, dtype=float)
    if a.size == 0:
        raise ValueError("no sweeps")
    return {"mean": float(a.mean()), "min": float(a.min())}


# ----------------------------------------------------------------------------- MMD
def median_heuristic(x, y) -> float:
    """Median of pairwise Euclidean distances in the pooled sample (bandwidth of the kernel)."""
    z = np.vstack([_as_draws(x), _as_draws(y)])
    m = z.shape[0]
    if m > 2000:  # the median of a 2000-point subsample is plenty and keeps this O(1) in n
        idx = np.linspace(0, m - 1, 2000).astype(np.int64)
        z = z[idx]
    d = _pairwise_distances(z)
    iu = np.triu_indices(z.shape[0], k=1)
    med = float(np.median(d[iu]))
    return med if med > 0 else 1.0


def paired_median_bandwidth(x, y, pairs: int, rng: np.random.Generator) -> float:
    """Median of |x_k - y_k| over ``pairs`` pairs, x_k and y_k drawn with replacement from the
    two samples (raisa2021's median heuristic, which subsamples so that samples of different
    sizes weigh alike). Seeded by ``rng``, so reruns give the same bandwidth."""
    a, b = _as_draws(x), _as_draws(y)
    if pairs < 1:
        raise ValueError(f"pairs must be >= 1, got {pairs}")
    ia = rng.integers(0, a.shape[0], size=pairs)
    ib = rng.integers(0, b.shape[0], size=pairs)
    med = float(np.median(np.sqrt(((a[ia] - b[ib]) ** 2).sum(axis=1))))
    return med if med > 0 else 1.0


@njit(cache=True)
def _pairwise_distances(z):
    """(m, m) Euclidean distances between the rows of z (for the median heuristic)."""
    m, d = z.shape
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            s = 0.0
            for k in range(d):
                t = z[i, k] - z[j, k]
                s += t * t
            out[i, j] = math.sqrt(s)
            out[j, i] = out[i, j]
    return out


@njit(cache=True)
def mean_kernel(a, b, inv2h2, same):
    """Mean of k(a_i, b_j) = exp(-|a_i - b_j|^2 inv2h2) over all pairs, or over i != j when
    ``same`` (the U-statistic terms of Gretton et al. 2012, Eq. 3)."""
    n, m = a.shape[0], b.shape[0]
    d = a.shape[1]
    total = 0.0
    for i in range(n):
        j0 = i + 1 if same else 0
        for j in range(j0, m):
            s = 0.0
            for k in range(d):
                t = a[i, k] - b[j, k]
                s += t * t
            total += math.exp(-s * inv2h2)
    if same:
        return 2.0 * total / (n * (n - 1))
    return total / (n * m)


@njit(cache=True)
def _mean_kernel_1d(a, b, inv2h2, same):
    """:func:`mean_kernel` for one dimension and contiguous vectors: the same terms in the same
    order (so the same value to the last bit), without the loop over coordinates and the strided
    reads of a column slice, about 1.3x faster (the exp calls are what remains)."""
    n, m = a.shape[0], b.shape[0]
    total = 0.0
    for i in range(n):
        ai = a[i]
        j0 = i + 1 if same else 0
        for j in range(j0, m):
            t = ai - b[j]
            total += math.exp(-(t * t) * inv2h2)
    if same:
        return 2.0 * total / (n * (n - 1))
    return total / (n * m)


def _kernel_mean(a, b, inv2h2, same) -> float:
    """Mean kernel term of two (n, d) draw arrays; the 1-d kernel where d = 1."""
    if a.shape[1] == 1:
        return float(
            _mean_kernel_1d(
                np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(b[:, 0]), inv2h2, same
            )
        )
    return float(mean_kernel(a, b, inv2h2, same))


def mmd2_unbiased(x, y, bandwidth: float | None = None) -> float:
    """Unbiased MMD^2 (Gretton et al. 2012, Eq. 3) with k(a, b) = exp(-|a-b|^2 / (2 h^2)).

    ``bandwidth`` h defaults to the median heuristic over the pooled sample. Can be slightly
    negative (it is unbiased); callers decide whether to clip for display.
    """
    if bandwidth is None:
        y = _as_draws(y)
        bandwidth = median_heuristic(_checked_sample(x, y), y)
    return MmdReference.of(y, bandwidth).mmd2(x)


class MmdReference:
    """A reference sample and a fixed bandwidth for unbiased MMD^2 (:func:`mmd2_unbiased`) of many
    samples against it: the reference's own kernel term, a third of each MMD^2's pairs, is computed
    once. ``MmdReference.of(y, h).mmd2(x)`` equals ``mmd2_unbiased(x, y, bandwidth=h)`` exactly."""

    def __init__(self, draws: np.ndarray, c: float, self_term: float):
        self.draws, self.c, self.self_term = draws, c, self_term

    @classmethod
    def of(cls, y, bandwidth: float) -> MmdReference:
        b = _as_draws(y)
        if b.shape[0] < 2:
            raise ValueError("need at least two draws in each sample")
        h = float(bandwidth)
        if not h > 0:
            raise ValueError(f"bandwidth must be positive, got {h}")
        c = 1.0 / (2.0 * h * h)
        return cls(b, c, _kernel_mean(b, b, c, True))

    def mmd2(self, x) -> float:
        """Unbiased MMD^2 of the sample ``x`` against the reference."""
        a, b = _checked_sample(x, self.draws), self.draws
        return float(
            _kernel_mean(a, a, self.c, True)
            + self.self_term
            - 2.0 * _kernel_mean(a, b, self.c, False)
        )


def _checked_sample(x, reference: np.ndarray) -> np.ndarray:
    """``x`` as draws of the reference's dimension, at least two of them."""
    a = _as_draws(x)
    if a.shape[1] != reference.shape[1]:
        raise ValueError("x and y must have the same dimension")
    if a.shape[0] < 2:
        raise ValueError("need at least two draws in each sample")
    return a


# ----------------------------------------------------------------------------- calibration
def quantile_of_truth(draws, truth) -> np.ndarray:
    """Fraction of posterior draws below the true value, per coordinate (ties count half)."""
    a = _as_draws(draws)
    t = np.asarray(truth, dtype=float).reshape(1, -1)
    return (a < t).mean(axis=0) + 0.5 * (a == t).mean(axis=0)


def ks_uniform(u) -> float:
    """Kolmogorov-Smirnov distance between the empirical CDF of ``u`` and U(0, 1)."""
    u = np.sort(np.asarray(u, dtype=float).ravel())
    n = u.size
    if n == 0:
        raise ValueError("no quantiles")
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - u), np.max(u - (i - 1) / n)))


def ks_critical_value(n: int, alpha: float = 0.05) -> float:
    """Asymptotic critical value sqrt(-log(alpha/2) / 2) / sqrt(n) of the one-sample KS test."""
    return math.sqrt(-0.5 * math.log(alpha / 2.0)) / math.sqrt(n)


# ----------------------------------------------------------------------------- convergence
def _as_chains(chains) -> np.ndarray:
    """(n_chains, n_draws, dim) float array from (n_chains, n_draws[, dim]); finite, >= 4 draws."""
    a = np.asarray(chains, dtype=float)
    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3 or a.shape[0] < 1 or a.shape[1] < 4:
        raise ValueError(f"chains must be (n_chains, n_draws >= 4[, dim]), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("chains contain NaN or inf")
    return a


def _split_halves(a: np.ndarray) -> np.ndarray:
    """Each chain's first and last halves as separate chains (the middle draw of an odd chain
    is dropped), so a trend within a chain shows as disagreement between chains."""
    half = a.shape[1] // 2
    return np.concatenate([a[:, :half], a[:, -half:]], axis=0)


def average_ranks(flat: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing their average rank (scipy.stats.rankdata's 'average',
    without importing scipy.stats: 1.5 s of every chain job's start-up)."""
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    ends = np.r_[starts[1:], flat.size]
    r = np.empty(flat.size)
    r[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return r


def _rank_normal(x: np.ndarray) -> np.ndarray:
    """Normal scores of the pooled ranks (average ranks for ties), (r - 3/8) / (S + 1/4)."""
    from scipy.special import ndtri

    r = average_ranks(x.ravel())
    return ndtri((r.reshape(x.shape) - 0.375) / (x.size + 0.25))


def _rhat_of(x: np.ndarray) -> float:
    """Classic R-hat of (n_chains, n_draws) draws; 1 if nothing varies, inf if only the chain
    means do (chains stuck at different values)."""
    n = x.shape[1]
    within = float(np.mean(np.var(x, axis=1, ddof=1)))
    between = n * float(np.var(np.mean(x, axis=1), ddof=1))
    if within == 0.0:
        return 1.0 if between == 0.0 else math.inf
    return math.sqrt((between / within + n - 1.0) / n)


def _ess_of(x: np.ndarray) -> float:
    """ESS of (n_chains, n_draws) draws from the multi-chain autocorrelation with Geyer's
    initial monotone sequence (Stan's estimator; Vehtari et al. 2021, Sec. 3.2)."""
    m, n = x.shape
    centred = x - x.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(centred, n=size, axis=1)
    acov = np.fft.irfft(f * np.conjugate(f), n=size, axis=1)[:, :n] / n  # biased, lag 0..n-1
    mean_var = float(np.mean(acov[:, 0])) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if m > 1:
        var_plus += float(np.var(x.mean(axis=1), ddof=1))
    if var_plus == 0.0:
        return 1.0  # nothing moves: the draws carry one value's information
    rho = np.zeros(n)
    mean_acov = acov.mean(axis=0)
    rho_even, rho_odd = 1.0, 1.0 - (mean_var - mean_acov[1]) / var_plus
    rho[0], rho[1] = rho_even, rho_odd
    t = 1
    while t < n - 3 and rho_even + rho_odd > 0.0:  # initial positive sequence
        rho_even = 1.0 - (mean_var - mean_acov[t + 1]) / var_plus
        rho_odd = 1.0 - (mean_var - mean_acov[t + 2]) / var_plus
        if rho_even + rho_odd >= 0.0:
            rho[t + 1], rho[t + 2] = rho_even, rho_odd
        t += 2
    max_t = t - 2
    if rho_even > 0.0:
        rho[max_t + 1] = rho_even
    t = 1
    while t <= max_t - 2:  # made monotone
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2.0
        t += 2
    tau = -1.0 + 2.0 * float(np.sum(rho[: max_t + 1])) + float(np.sum(rho[max_t + 1 : max_t + 2]))
    total = m * n
    return total / max(tau, 1.0 / math.log10(total))


def split_rhat(chains) -> np.ndarray:
    """Rank-normalised split R-hat per parameter (Vehtari et al. 2021): the larger of the bulk
    R-hat (normal scores of the split chains) and the tail R-hat (of the folded draws
    |x - median|). ``chains``: (n_chains, n_draws[, dim]); one chain is split in halves."""
    a = _split_halves(_as_chains(chains))
    out = np.empty(a.shape[2])
    for j in range(a.shape[2]):
        x = a[:, :, j]
        if np.all(x == x.flat[0]):
            out[j] = 1.0  # nothing moves anywhere: no disagreement to measure (ESS flags it)
            continue
        folded = np.abs(x - np.median(x))
        out[j] = max(_rhat_of(_rank_normal(x)), _rhat_of(_rank_normal(folded)))
    return out


def bulk_ess(chains) -> np.ndarray:
    """Bulk effective sample size per parameter (Vehtari et al. 2021): the ESS of the normal
    scores of the split chains. ``chains``: (n_chains, n_draws[, dim]); a constant parameter
    gets 1."""
    a = _split_halves(_as_chains(chains))
    out = np.empty(a.shape[2])
    for j in range(a.shape[2]):
        x = a[:, :, j]
        out[j] = 1.0 if np.all(x == x.flat[0]) else _ess_of(_rank_normal(x))
    return out


# ----------------------------------------------------------------------------- Monte Carlo error
def effective_sample_size(chain) -> np.ndarray:
    """ESS of the mean of one chain, per coordinate: the estimator of :func:`bulk_ess` on the
    raw draws (not rank-normalised, not split), for Monte Carlo errors of posterior means; a
    chain that never moves carries the information of one draw (ESS 1)."""
    a = _as_draws(chain)
    out = np.empty(a.shape[1])
    for j in range(a.shape[1]):
        x = a[:, j]
        out[j] = (
            1.0
            if a.shape[0] < 4 or np.all(x == x[0])
            else min(_ess_of(x[None, :]), float(a.shape[0]))
        )
    return out


def mc_standard_error(chain) -> np.ndarray:
    """Monte Carlo standard error of the chain mean, sd / sqrt(ESS)."""
    a = _as_draws(chain)
    return a.std(axis=0, ddof=1) / np.sqrt(effective_sample_size(a))


def degenerate(acceptance, ess_min, *, min_acceptance: float = 0.05, min_ess: float = 5.0):
    """Which chains collapsed: mean acceptance of their Metropolis step below ``min_acceptance``
    or smallest ESS of their parameters below ``min_ess`` (elementwise over arrays of chains).
    Their summaries stand for far fewer draws than they seem to."""
    return (np.asarray(acceptance, float) < min_acceptance) | (np.asarray(ess_min, float) < min_ess)


def unconverged(rhat, ess, *, max_rhat: float, min_ess: float):
    """Which trials fail the convergence diagnostics: R-hat above ``max_rhat`` or bulk ESS below
    ``min_ess`` (elementwise over arrays of trials)."""
    return (np.asarray(rhat, float) > float(max_rhat)) | (np.asarray(ess, float) < float(min_ess))


def passing_share(rhat, ess, health: dict) -> float:
    """Share of trials whose chains pass ``health`` (its ``max_rhat`` and ``min_ess``): the
    number a converged companion must bring to ``health["min_passing"]``."""
    bad = unconverged(rhat, ess, max_rhat=health["max_rhat"], min_ess=health["min_ess"])
    return float(1.0 - np.mean(bad))
