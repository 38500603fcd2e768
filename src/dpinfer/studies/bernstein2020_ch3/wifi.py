"""Synthetic stand-in for the wifi mobility data of thesis figure 3.6
(bernstein2020, section 3.3.4).

The thesis fits a time-homogeneous first-order chain over 24 hourly locations (one transition
potential psi(x_t, x_{t+1}) shared by all 23 edges plus a node potential phi(x_1)) to proprietary
logs of wifi connections in an academic building: 124,399 individuals, each a (user, day) pair,
location "null" when not connected. The logs are not public, so this module generates a synthetic
data set with the same shape and the same kind of sparsity, and provides the pre-processing and
the evaluation the figure needs.

Data (decisions of this reproduction, not of the thesis)
    A record is 24 hourly states in {0 = null, 1..L}; K = L + 1 states (default L = 5, K = 6).
    :class:`WifiGenerator` holds every parameter. Each individual has a latent type: absent all day
    (all null), a short visit (arrival around midday, 1 + Poisson hours) or a long stay (arrival
    around 9, about 8 hours); a home location drawn from a Zipf-like popularity; while present it
    starts at home and each hour stays put with probability ``stay_prob``, else returns home or
    jumps to a popular location; present hours are independently null with probability
    ``gap_prob`` (phone asleep, outside coverage). Arrival times, finite stays and the pull back
    to home make the data NOT a time-homogeneous Markov chain, so the fitted model is
    misspecified as it is with real data. Default parameters give about 82% null hours, 4.4 hours
    present per individual and 7% all-null records.

    The thesis' sentence "an individual now contributes 24 records to each contingency table" can
    also be read as a model over the six 10-minute slots of one hour with 24 records per
    individual; we follow the reading of FACTS.md (a chain over 24 hourly steps).

Normalisation (the thesis' 1/K, after He et al. 2015)
    K_i = number of the 23 edges (t, t+1) whose two ends are not both null; w_i = 1/max(K_i, 1)
    (an all-null individual has K_i = 0 and weight 1). Each individual adds w_i to its cell of
    EVERY edge table, null-null cells included, so it changes each table by at most 1 in L1 and
    the 23 tables together by at most 23 = |C|: the Laplace scale |C|/eps of section 3.3.4.

Population size
    The estimators maximise theta.y - N A(theta) with N = sum_i w_i, the sum of every noiseless
    edge table, which depends on the data. We do not release it separately: :func:`population_size`
    estimates it as the mean of the noisy table sums, a post-processing of the released tables
    (no extra privacy cost). With Laplace scale b = E/eps per cell its standard deviation is
    sqrt(2 K^2 / E) b = 40.7/eps for K = 6, E = 23: against N of about 27,000 for the default
    training set that is 0.15% at eps = 1, 1.5% at eps = 0.1 and 15% at eps = 0.01. Releasing N
    separately would need its own share of the budget for about the same noise. Floored at 1.

Evaluation
    :func:`holdout_loglik` is the y-axis of figure 3.6: E_q[log p(x; theta)] with q the weighted
    empirical distribution of the held-out individuals, computed from their weighted edge tables
    by exact chain inference (no enumeration).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...models.mrf_inference import exact_marginals
from ...models.pairwise_mrf import PairwiseMRF, tables_from_records, theta_dot, tied_chain

__all__ = [
    "N_INDIVIDUALS",
    "WifiGenerator",
    "generate",
    "wifi_model",
    "split",
    "edge_activity",
    "weights",
    "weighted_tables",
    "population_size",
    "holdout_loglik",
    "summary",
]

N_INDIVIDUALS = 124_399  # (user, day) pairs in the thesis' wifi data (section 3.3.4)


@dataclass(frozen=True)
class WifiGenerator:
    """Parameters of the synthetic wifi log (defaults: a mid-sized building over a working day).

    ``type_probs`` are the probabilities of (absent all day, short visit, long stay). Arrival hours
    are rounded normals clipped to the day; short-visit durations are 1 + Poisson(mean - 1) hours,
    long-stay durations rounded normals of at least one hour; a stay is cut at midnight.
    Location popularity is proportional to rank^-location_zipf.
    """

    n_hours: int = 24
    n_locations: int = 5
    type_probs: tuple[float, float, float] = (0.05, 0.45, 0.50)
    short_arrival_mean: float = 12.5
    short_arrival_sd: float = 3.0
    short_duration_mean: float = 2.0
    long_arrival_mean: float = 9.0
    long_arrival_sd: float = 1.5
    long_duration_mean: float = 8.0
    long_duration_sd: float = 2.0
    location_zipf: float = 1.0
    stay_prob: float = 0.75
    return_home_prob: float = 0.5
    gap_prob: float = 0.1

    def __post_init__(self):
        p = np.asarray(self.type_probs, dtype=float)
        if p.shape != (3,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError(
                f"type_probs must be 3 probabilities summing to 1, got {self.type_probs}"
            )
        if self.n_hours < 2:
            raise ValueError("n_hours must be at least 2 (a chain needs an edge)")
        if not 1 <= self.n_locations <= 254:
            raise ValueError("n_locations must be in 1..254 (states are stored as uint8)")
        if self.short_duration_mean < 1:
            raise ValueError("short_duration_mean must be at least 1 hour")
        if min(self.short_arrival_sd, self.long_arrival_sd, self.long_duration_sd) < 0:
            raise ValueError("standard deviations must be non-negative")
        for name in ("stay_prob", "return_home_prob", "gap_prob"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]")

    @property
    def n_states(self) -> int:
        """K = L + 1: the null state 0 and the locations 1..L."""
        return self.n_locations + 1

    def popularity(self) -> np.ndarray:
        """(L,) probabilities of the locations 1..L, proportional to rank^-location_zipf."""
        w = np.arange(1, self.n_locations + 1, dtype=float) ** -self.location_zipf
        return w / w.sum()


def wifi_model(gen: WifiGenerator) -> PairwiseMRF:
    """The model of figure 3.6: a tied first-order chain over ``n_hours`` with K = L + 1 states."""
    return tied_chain(gen.n_hours, gen.n_states)


def generate(gen: WifiGenerator, n_individuals: int, rng: np.random.Generator) -> np.ndarray:
    """(n_individuals, n_hours) uint8 records of hourly locations, 0 = null
    (see the module docstring).

    Vectorised over individuals: the only loop is over the hours.
    """
    n, T, L = int(n_individuals), gen.n_hours, gen.n_locations
    if n < 0:
        raise ValueError("n_individuals must be non-negative")
    kind = rng.choice(3, size=n, p=np.asarray(gen.type_probs, dtype=float))
    short, long_ = kind == 1, kind == 2

    arrival = np.where(
        short,
        rng.normal(gen.short_arrival_mean, gen.short_arrival_sd, n),
        rng.normal(gen.long_arrival_mean, gen.long_arrival_sd, n),
    )
    arrival = np.clip(np.rint(arrival), 0, T - 1).astype(np.int64)
    dur_short = 1 + rng.poisson(gen.short_duration_mean - 1.0, n)
    dur_long = np.maximum(1, np.rint(rng.normal(gen.long_duration_mean, gen.long_duration_sd, n)))
    duration = np.where(short, dur_short, np.where(long_, dur_long, 0)).astype(np.int64)
    departure = np.minimum(arrival + duration, T)  # exclusive; stays are cut at midnight

    pop = gen.popularity()
    home = (rng.choice(L, size=n, p=pop) + 1).astype(np.int64)
    u_move = rng.random((n, T))
    u_home = rng.random((n, T))
    jump = rng.choice(L, size=(n, T), p=pop) + 1
    gap = rng.random((n, T)) < gen.gap_prob

    records = np.zeros((n, T), dtype=np.uint8)
    loc = home.copy()
    for t in range(T):
        # the walk starts at home on arrival; before that its value is never recorded
        moves = u_move[:, t] >= gen.stay_prob
        target = np.where(u_home[:, t] < gen.return_home_prob, home, jump[:, t])
        loc = np.where(arrival == t, home, np.where(moves, target, loc))
        present = (arrival <= t) & (t < departure) & ~gap[:, t]
        records[present, t] = loc[present]
    return records


def split(n: int, train_fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random split of ``n`` individuals: sorted (train_idx, test_idx),
    round(n*fraction) in train."""
    if not 0.0 < train_fraction < 1.0:
        raise ValueError("train_fraction must be in (0, 1)")
    perm = rng.permutation(int(n))
    n_train = int(round(train_fraction * n))
    return np.sort(perm[:n_train]), np.sort(perm[n_train:])


def edge_activity(records: np.ndarray) -> np.ndarray:
    """(n,) K_i: the number of edges (t, t+1) whose two ends are not both null."""
    x = np.asarray(records) != 0
    return (x[:, :-1] | x[:, 1:]).sum(axis=1).astype(np.int64)


def weights(records: np.ndarray) -> np.ndarray:
    """(n,) w_i = 1 / max(K_i, 1): the thesis' normalisation, so each table moves by <= 1 per
    individual."""
    return 1.0 / np.maximum(edge_activity(records), 1)


def weighted_tables(model: PairwiseMRF, records: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(E, K, K) edge tables where individual i adds w_i to its cell of every edge table.

    Each table sums to sum_i w_i; with w from :func:`weights` the L1 sensitivity of all tables
    together is model.n_cliques (= |C|).
    """
    records, w = np.asarray(records), np.asarray(w, dtype=float)
    if w.shape != (records.shape[0],):
        raise ValueError(f"w must have shape ({records.shape[0]},), got {w.shape}")
    return np.asarray(tables_from_records(model, records, weights=w), dtype=float)


def population_size(noisy_tables: np.ndarray) -> float:
    """N estimated from released tables: the mean over edges of the noisy table sums, floored at 1.

    Every noiseless table sums to the same total weight, so this is an unbiased post-processing
    estimate (before the floor, which only acts at absurdly small epsilon).
    """
    y = np.asarray(noisy_tables, dtype=float)
    sums = y.reshape(y.shape[0], -1).sum(axis=1)
    return float(max(sums.mean(), 1.0))


def holdout_loglik(
    model: PairwiseMRF, theta: np.ndarray, test_tables: np.ndarray, test_weight_total: float
) -> float:
    """Weighted mean holdout log-likelihood per individual (y-axis of figure 3.6).

    E_q[log p(x; theta)] = sum_C theta_C . q_C - A(theta), q_C = test_tables[C] / test_weight_total,
    i.e. sum_i w_i log p(x_i; theta) / sum_i w_i over the test individuals; A from exact inference.
    """
    if not test_weight_total > 0:
        raise ValueError("test_weight_total must be positive")
    q = np.asarray(test_tables, dtype=float) / float(test_weight_total)
    return float(theta_dot(model, theta, q) - exact_marginals(model, theta).log_z)


def summary(records: np.ndarray) -> dict:
    """Descriptive numbers of a data set for the figure caption and the closing note.

    A flat dict of scalars (so it saves to npz as is): n_individuals, n_hours, fraction_null,
    mean_hours_present, fraction_all_null, k_mean, k_p0, k_p10, k_p25, k_p50, k_p75, k_p90,
    k_p100 (percentiles of K_i), n_k_zero, weight_total, weight_share_k_zero (share of the total
    weight held by the K_i = 0 individuals, each of weight 1), busiest_hour.
    """
    x = np.asarray(records)
    n, T = x.shape
    present = x != 0
    k = edge_activity(x)
    w = 1.0 / np.maximum(k, 1)
    qs = (0, 10, 25, 50, 75, 90, 100)
    quant = np.percentile(k, qs) if n else np.zeros(len(qs))
    total = float(w.sum())
    out = {
        "n_individuals": int(n),
        "n_hours": int(T),
        "fraction_null": float(1.0 - present.mean()) if n else 1.0,
        "mean_hours_present": float(present.sum(axis=1).mean()) if n else 0.0,
        "fraction_all_null": float((~present.any(axis=1)).mean()) if n else 0.0,
        "k_mean": float(k.mean()) if n else 0.0,
        "n_k_zero": int((k == 0).sum()),
        "weight_total": total,
        "weight_share_k_zero": float(w[k == 0].sum() / total) if n else 0.0,
        "busiest_hour": int(present.sum(axis=0).argmax()) if n else 0,
    }
    out.update({f"k_p{q}": float(v) for q, v in zip(qs, quant)})
    return out
