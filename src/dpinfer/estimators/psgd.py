"""PSGD: DP-SGD of Abadi et al. (2016) on the per-individual log-likelihood of a pairwise MRF.

The third method of Chapter 3 of bernstein2020 (Section 3.3.1): "(epsilon, delta = 1/N)", tuned
by grid search; settings whose (epsilon, delta) it cannot reach are omitted, as in the thesis.

One step (Algorithm 1 of Abadi et al. 2016, "lot" = Poisson sample with rate q = lot_size / N):

    g_i  = s(x_i) - mu(theta)                          per-example gradient of log p(x_i; theta)
    g_i <- g_i min(1, clip / ||g_i||_2)                  clip in L2
    theta <- theta + lr [ (sum_i g_i + N(0, (sigma clip)^2 I)) / lot_size - 2 lam theta ]

where s(x) are the sufficient statistics of one record in the flat theta layout
(``statistics`` of its one-hot edge tables) and mu(theta) = ``statistics(model, marginals.edge)``
(one ``exact_marginals`` call per step). The ascent is on the mean log-likelihood, so the
optional L2 penalty ``lam ||theta||^2`` is per individual (lam = 0 by default; a tiny lam only
keeps the per-table constant directions, which the likelihood does not see but the noise
random-walks in, from drifting).

Per-example norms are never materialised as an N x dim (or lot x dim) matrix: a record touches
E block entries (plus one node entry per free node potential), so
||s_i - mu||^2 = ||s_i||^2 - 2 s_i.mu + ||mu||^2 is accumulated over those few indices in a numba
kernel. The record -> index map is read off the model's own linear maps
(``edge_log_potentials`` is the adjoint of ``statistics``) and checked against both.

Privacy: ``steps = round(epochs / q)`` compositions of PoissonSampledDpEvent(q,
GaussianDpEvent(sigma)) under dp-accounting's RDP accountant (its default orders densified above 64,
see ``_rdp_orders``) with the accountant's default relation ADD_OR_REMOVE_ONE (that of Abadi et
al.'s moments accountant); the clipped-sum L2 sensitivity is ``clip``. The chapter's Laplace
releases refer to the same relation: Laplace(|C| / eps) on the clique tables
(Eq. 3.3, Proposition 2) is eps-DP when one record is added or removed (L1 change |C|), so PSGD and
the table methods are compared at the same epsilon. Under the thesis's own definition
(Chapter 2: one record replaced, n fixed) both guarantees are weaker: the tables are 2 eps-DP
(L1 change 2 |C|) and PSGD is (2 eps, (1 + e^eps) delta)-DP by group privacy (docs/privacy.md).
Returned iterate: the average of the iterates over the second half of the run (Polyak-Ruppert
tail averaging, post-processing, so free of privacy cost); it damps the noise random walk that
the final iterate carries, which at these noise levels lowers KL (see ``average=False``).
:func:`tuning_grid` gives the small grid searched per (N, epsilon), measured on the T = 10,
K = 10 chain.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit

from ..mechanisms import Gaussian
from ..models.mrf_inference import exact_marginals
from ..models.pairwise_mrf import edge_log_potentials, statistics, tables_from_records
from .fit import Fit, timed_fit

__all__ = [
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
    "record_index_map",
    "clipped_gradient_sum",
    "psgd_steps",
    "psgd",
    "tuning_grid",
    "MAX_NOISE_MULTIPLIER",
]

# --------------------------------------------------------------------------- accountant
# Largest noise multiplier the caller accepts before calling a setting unreachable (omitted).
MAX_NOISE_MULTIPLIER = 50.0
_MIN_NOISE_MULTIPLIER = 1e-3
_START_NOISE_MULTIPLIER = 0.3


@lru_cache(maxsize=64)
def _rdp_orders(max_order: float = 4096.0) -> tuple[float, ...]:
    """dp-accounting's default RDP orders, densified above 64 and extended to 4096, up to
    ``max_order``.

    The defaults jump from 63 to 128 to 256 ... 1024, so epsilon(sigma) drops by ~40% within 1% of
    sigma where the optimal order crosses such a gap (seen at q = 1e-3, 3000 steps, delta = 1e-6),
    and orders > 1024 are needed for epsilon = 0.01 at delta = 1e-6. Every order set gives a valid
    bound; the denser one is tighter and smooth in sigma. Large integer orders dominate the cost
    (an order alpha sums alpha + 1 terms), hence the cap.
    """
    from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS

    extra = [
        *range(64, 128, 2),
        *range(128, 256, 8),
        *range(256, 1025, 32),
        1280,
        1536,
        2048,
        3072,
        4096,
    ]
    orders = sorted(set(map(float, DEFAULT_RDP_ORDERS)) | set(map(float, extra)))
    return tuple(a for a in orders if a <= max_order)


def _max_order(epsilon: float, delta: float) -> float:
    """Orders worth computing for a target epsilon: the optimum is ~ 1 + 2 log(1/delta) / epsilon
    for a Gaussian (smaller once subsampling makes the RDP grow faster than linearly); 2x slack."""
    return min(4096.0, 64.0 + 4.0 * math.log(1.0 / delta) / epsilon)


def dpsgd_epsilon(
    noise_multiplier: float,
    sampling_rate: float,
    steps: int,
    delta: float,
    *,
    max_order: float = 4096.0,
) -> float:
    """epsilon(delta) of ``steps`` Poisson-subsampled Gaussian steps, dp-accounting's
    RdpAccountant."""
    # Imported here: dp-accounting takes about a second to import (as in dpinfer.accounting).
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    accountant = rdp_privacy_accountant.RdpAccountant(list(_rdp_orders(float(max_order))))
    event = dp_event.GaussianDpEvent(float(noise_multiplier))
    if sampling_rate < 1.0:
        event = dp_event.PoissonSampledDpEvent(float(sampling_rate), event)
    accountant.compose(event, int(steps))
    return float(accountant.get_epsilon(float(delta)))


@lru_cache(maxsize=256)
def dpsgd_noise_multiplier(
    epsilon: float,
    delta: float,
    sampling_rate: float,
    steps: int,
    *,
    max_noise_multiplier: float = MAX_NOISE_MULTIPLIER,
    max_order: float | None = None,
    rtol: float = 2e-3,
) -> float | None:
    """Smallest noise multiplier sigma (to relative ``rtol``) with epsilon(delta) <= ``epsilon``.

    epsilon(delta) decreases in sigma and is smooth in log-log, so Brent's method on
    log epsilon(log sigma) finds the crossing in ~8 accountant calls (0.02-0.3 s each, the more
    the smaller epsilon; cached, since it depends only on its arguments); the answer is then
    nudged up until the guarantee holds.
    Search range [1e-3, max_noise_multiplier]; returns None when even ``max_noise_multiplier``
    does not reach ``epsilon`` (the caller omits that setting, as the thesis omits unreachable
    epsilons). ``max_order`` caps the RDP orders (default: all that can matter for ``epsilon``);
    33 mimics the moments accountant of Abadi et al. (2016, lambda <= 32), under which
    epsilon >= log(1/delta) / 32, so small epsilons are unreachable at any sigma.
    """
    if not (epsilon > 0 and 0 < delta < 1 and 0 < sampling_rate <= 1 and steps >= 1):
        raise ValueError(
            f"bad accountant arguments {epsilon=}, {delta=}, {sampling_rate=}, {steps=}"
        )
    from scipy.optimize import brentq

    max_order = _max_order(epsilon, delta) if max_order is None else float(max_order)

    def excess(log_sigma):  # floored so that epsilon = 0 (huge sigma) stays finite in log space
        eps = dpsgd_epsilon(math.exp(log_sigma), sampling_rate, steps, delta, max_order=max_order)
        return math.log(max(eps, 1e-9 * epsilon)) - math.log(epsilon)

    hi = float(max_noise_multiplier)
    f_hi = excess(math.log(hi))
    if f_hi > 0:
        return None
    lo = min(_START_NOISE_MULTIPLIER, hi)
    f_lo = excess(math.log(lo))
    if f_lo <= 0:
        lo, f_lo = _MIN_NOISE_MULTIPLIER, excess(math.log(_MIN_NOISE_MULTIPLIER))
        if f_lo <= 0:
            return _MIN_NOISE_MULTIPLIER
        hi = _START_NOISE_MULTIPLIER
    sigma = math.exp(brentq(excess, math.log(lo), math.log(hi), xtol=rtol / 4))
    while excess(math.log(sigma)) > 0:
        sigma *= 1.0 + rtol / 4
    return min(sigma, float(max_noise_multiplier))


def psgd_steps(n_records: int, lot_size: int, epochs: float) -> tuple[float, int]:
    """(sampling rate q = lot_size / N, steps = max(1, round(epochs / q)))."""
    q = min(1.0, lot_size / n_records)
    return q, max(1, int(round(epochs / q)))


def tuning_grid(n_records: int, epsilon: float) -> list[dict]:
    """The PSGD settings to grid-search for one (N, epsilon): lot, epochs and clip fixed, 3 learning
    rates.

    - clip = 1: a record's gradient s_i - mu has norm ~ sqrt(E) (>= 3 on the T = 10 chain), so every
      record is clipped and the update depends on lr * clip alone; tuning lr covers both.
    - lot = max(sqrt(N), N / 100), 5 epochs: 500 steps for N >= 1e4 (~0.3-0.5 s per fit, ~1.5 s at
      N = 1e6); larger lots or fewer epochs were no better on the T = 10, K = 10 chain.
    - learning rates {1/3, 1, 3} x 3 sqrt(N epsilon / 1e4): the best of 1/9..9 x that scale lay in
      {1/3, 1, 3} x for every N in {1e3, 1e4, 1e5} and epsilon in {0.1, 1} (more data or budget
      means less relative noise, so a longer step pays).
    """
    scale = 3.0 * math.sqrt(n_records * epsilon / 1e4)
    lot = max(int(round(math.sqrt(n_records))), n_records // 100, 1)
    return [
        dict(learning_rate=scale * f, clip=1.0, lot_size=lot, epochs=5) for f in (1 / 3, 1.0, 3.0)
    ]


# --------------------------------------------------------------------------- per-example gradients
@lru_cache(maxsize=64)
def record_index_map(model) -> tuple[np.ndarray, np.ndarray]:
    """Flat-theta rows touched by each edge-table cell:
    (block_row (E,K,K), node_row (E,K,K), -1 = none).

    Read off ``edge_log_potentials`` (the adjoint of ``statistics``) on two probes: block
    entries numbered 1.. with node entries 0, and the other way round. The map is then checked
    against both ``statistics`` and ``edge_log_potentials`` on random arguments, so a layout
    where a cell feeds more than one block or node entry raises instead of silently mis-clipping.
    Cached per model structure (models hash by structure); the arrays are read-only.
    """
    kk = model.n_states**2
    n_blk = model.n_blocks * kk
    dim = model.dim
    probe = np.zeros(dim)
    probe[:n_blk] = np.arange(1, n_blk + 1)
    block_row = np.rint(edge_log_potentials(model, probe)).astype(np.int64) - 1
    probe[:] = 0.0
    probe[n_blk:] = np.arange(1, dim - n_blk + 1)
    node = np.rint(edge_log_potentials(model, probe)).astype(np.int64)
    node_row = np.where(node > 0, n_blk + node - 1, -1)
    rng = np.random.default_rng(0)
    tables = rng.random(block_row.shape)
    theta = rng.standard_normal(dim)
    ok = block_row.min() >= 0 and block_row.max() < n_blk
    ok = ok and np.allclose(statistics(model, tables), _scatter(tables, block_row, node_row, dim))
    ok = ok and np.allclose(
        edge_log_potentials(model, theta),
        theta[block_row] + np.where(node_row >= 0, theta[np.maximum(node_row, 0)], 0.0),
    )
    if not ok:
        raise ValueError(
            "model layout is not one block entry (+ at most one node entry) per table cell"
        )
    block_row.setflags(write=False)
    node_row.setflags(write=False)
    return block_row, node_row


def _scatter(tables, block_row, node_row, dim):
    """S vec(tables) for the map of record_index_map (used only to check that map)."""
    out = np.bincount(block_row.ravel(), weights=tables.ravel(), minlength=dim)
    has = node_row.ravel() >= 0
    out += np.bincount(node_row.ravel()[has], weights=tables.ravel()[has], minlength=dim)
    return out


@njit(cache=True)
def _clipped_sum_kernel(records, lot, edges, block_row, node_row, mu, mu_sq, clip, scratch, out):
    """Add min(1, clip/||s_i - mu||) s_i into ``out`` for the records in ``lot``.

    s_i is the 0/1/count statistic vector of record i (rows block_row / node_row of its edge
    cells); ``scratch`` is an all-zero int array of length dim, returned all-zero. Returns
    (sum of the clip factors, number of clipped records); the caller subtracts (sum) * mu.
    """
    n_edges = edges.shape[0]
    rows = np.empty(2 * n_edges, np.int64)
    c_sum = 0.0
    n_clipped = 0
    for i in lot:
        m = 0
        for e in range(n_edges):
            a = records[i, edges[e, 0]]
            b = records[i, edges[e, 1]]
            rows[m] = block_row[e, a, b]
            m += 1
            if node_row[e, a, b] >= 0:
                rows[m] = node_row[e, a, b]
                m += 1
        sq = 0.0
        dot = 0.0
        for j in range(m):  # ||s_i||^2 with repeated rows (tied blocks) counted as squares
            r = rows[j]
            sq += 2 * scratch[r] + 1
            scratch[r] += 1
            dot += mu[r]
        for j in range(m):
            scratch[rows[j]] = 0
        norm = math.sqrt(max(sq - 2.0 * dot + mu_sq, 0.0))
        c = 1.0
        if norm > clip:
            c = clip / norm
            n_clipped += 1
        for j in range(m):
            out[rows[j]] += c
        c_sum += c
    return c_sum, n_clipped


def clipped_gradient_sum(records, lot, edges, block_row, node_row, mu_flat, clip):
    """(sum over the lot of the clipped per-example gradients s_i - mu, number clipped)."""
    out = np.zeros(mu_flat.shape[0])
    scratch = np.zeros(mu_flat.shape[0], np.int64)
    c_sum, n_clipped = _clipped_sum_kernel(
        records,
        np.asarray(lot, np.int64),
        edges,
        block_row,
        node_row,
        mu_flat,
        float(mu_flat @ mu_flat),
        float(clip),
        scratch,
        out,
    )
    return out - c_sum * mu_flat, n_clipped


# --------------------------------------------------------------------------- the estimator
@timed_fit
def psgd(
    model,
    records,
    epsilon: float,
    delta: float,
    *,
    learning_rate: float,
    clip: float,
    lot_size: int,
    epochs: float,
    rng: np.random.Generator,
    inference=exact_marginals,
    max_noise_multiplier: float = MAX_NOISE_MULTIPLIER,
    max_order: float | None = None,
    lam: float = 0.0,
    average: bool = True,
) -> Fit | None:
    """DP-SGD fit of the flat theta from ``records`` (N, T) ints; None if (epsilon, delta) is
    unreachable.

    Starts at theta = 0; ``steps = round(epochs N / lot_size)`` Poisson lots of expected size
    ``lot_size``; noise N(0, (sigma clip)^2 I) from ``Gaussian(sigma=sigma clip, sensitivity=clip)``
    with sigma = :func:`dpsgd_noise_multiplier` (``max_noise_multiplier``, ``max_order`` passed on).
    Returns the tail average of the iterates (second half) when ``average`` else the final iterate.
    ``inference`` maps (model, theta) to marginals (``loopy_bp`` for graphs without a small junction
    tree).

    Fit.objective is the mean log-likelihood of the records at theta_t after every step plus, last,
    at the returned theta: a diagnostic computed from the non-private data, never released.
    Fit.converged is True when every iterate stayed finite (DP-SGD runs a fixed number of steps);
    otherwise the run stops, and theta = 0 (the start) is returned with converged False.
    """
    records = np.ascontiguousarray(records)
    n = records.shape[0]
    q, steps = psgd_steps(n, lot_size, epochs)
    sigma = dpsgd_noise_multiplier(
        float(epsilon),
        float(delta),
        q,
        steps,
        max_noise_multiplier=float(max_noise_multiplier),
        max_order=max_order,
    )
    if sigma is None:
        return None
    mechanism = Gaussian(sigma=sigma * clip, sensitivity=clip)
    block_row, node_row = record_index_map(model)
    edges = np.ascontiguousarray(model.edges, dtype=np.int64)
    s_bar = statistics(model, tables_from_records(model, records)) / n  # objective diagnostic only
    dim = model.dim
    expected_lot = q * n
    theta = np.zeros(dim)
    tail_sum = np.zeros(dim)
    tail_start = steps // 2
    objective = np.empty(steps + 1)
    finite, done = True, steps
    for t in range(steps):
        marg = inference(model, theta)
        mu_flat = statistics(model, marg.edge)
        if t > 0:
            objective[t - 1] = theta @ s_bar - marg.log_z
        size = rng.binomial(n, q) if q < 1.0 else n
        lot = rng.choice(n, size=size, replace=False) if q < 1.0 else np.arange(n)
        grad, _ = clipped_gradient_sum(records, lot, edges, block_row, node_row, mu_flat, clip)
        grad += mechanism.noise(rng, dim)
        theta = theta + learning_rate * (grad / expected_lot - 2.0 * lam * theta)
        if t >= tail_start:
            tail_sum += theta
        if not np.all(np.isfinite(theta)):
            finite, done = False, t + 1
            break
    if finite:
        objective[steps - 1] = theta @ s_bar - inference(model, theta).log_z
        if average:
            theta = tail_sum / (steps - tail_start)
        objective[steps] = theta @ s_bar - inference(model, theta).log_z
    else:
        theta = np.zeros(dim)  # diverged: fall back to the starting point and say so
        objective[:] = -math.log(model.n_states) * model.n_nodes  # mean log-likelihood at theta = 0
    return Fit(theta=theta, iterations=done, converged=finite, objective=objective, seconds=0.0)
