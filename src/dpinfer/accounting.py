"""Privacy accountants of Räisä (2021), "Differentially Private MCMC" (MSc thesis).

Every function returns a privacy loss or an iteration count; none draws noise. Theorem
numbers are the thesis's (seed text = author's code state 9c834d7).

- :func:`zcdp_rho`: total zCDP budget rho for an (epsilon, delta) target (Theorems 5 and 10).
- :func:`zcdp_iterations_penalty`: DP penalty count floor(2 tau^2 n rho) (Theorem 5, alpha = 1/2).
- :func:`zcdp_iterations_hmc`: DP HMC count (Theorem 10): seed
  floor((rho - rho_g)/(rho_l + L rho_g)) (kL + 1 gradient releases); HEAD
  floor(rho / (rho_l + (L + 1) rho_g)) (k(L + 1) releases).
- :func:`gaussian_pld_delta`: tight delta(epsilon) of a Gaussian privacy-loss distribution
  N(mu, 2 mu) (Theorem 4 / Theorem 6, and Theorem 11 with summed mu), computed in log space.
- :func:`penalty_mu`, :func:`hmc_mu`: the total mu of k iterations (Theorems 6 and 11).
- :func:`subsampled_rdp`: the subsampling amplification bound the thesis uses in Theorems 7 and 8
  ([WBK19, Theorem 9] with both min{2, ...} factors replaced by 2), in log space.
- :func:`barker_step_rdp`, :func:`barker_epsilon`: DP Barker (Theorem 7) and RDP -> ADP (Theorem 1).
- :func:`gaussian_step_rdp`, :func:`minibatch_rdp_iterations`: minibatch DP penalty via RDP
  (Theorem 8), the author's per-order count used only for Fig 6.1.
- :func:`minibatch_pld_delta`: minibatch DP penalty, tight numerical accountant (dp-accounting PLD;
  the author used the Fourier accountant of [KJH20]).
- :func:`max_iterations`: Algorithm 2 (bisection), for any privacy loss increasing in k.
- :func:`iteration_count`: the count for (algorithm, hyperparameters, n, epsilon, delta).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache, partial

import numpy as np
from scipy.special import gammaln, log_ndtr, logsumexp

__all__ = [
    "ALGORITHMS",
    "zcdp_rho",
    "zcdp_iterations_penalty",
    "zcdp_iterations_hmc",
    "gaussian_pld_delta",
    "penalty_mu",
    "hmc_mu",
    "subsampled_rdp",
    "gaussian_step_rdp",
    "barker_step_rdp",
    "barker_epsilon",
    "minibatch_rdp_iterations",
    "minibatch_pld_delta",
    "max_iterations",
    "zcdp_iteration_count",
    "iteration_count",
]

ALGORITHMS = ("dpps", "dppa", "hmc", "mdpps", "mdppa", "barker")
_HIGH_START_SUBSAMPLED = 1024.0  # the thesis's starting "high" for the subsampled accountants
_HIGH_CAP = 2.0**40  # guards the doubling loop against a loss that never reaches the target


# --------------------------------------------------------------------------- zCDP (Thms 5, 10)
def zcdp_rho(epsilon: float, delta: float) -> float:
    """rho such that rho-zCDP implies (epsilon, delta)-ADP (inverse of Theorem 1's conversion)."""
    return (math.sqrt(epsilon - math.log(delta)) - math.sqrt(-math.log(delta))) ** 2


def zcdp_iterations_penalty(epsilon: float, delta: float, tau: float, n: int) -> int:
    """Theorem 5 with alpha = 1/2: floor(2 tau^2 n rho)."""
    return math.floor(2.0 * tau**2 * n * zcdp_rho(epsilon, delta))


def zcdp_iterations_hmc(
    epsilon: float,
    delta: float,
    tau_l: float,
    tau_g: float,
    L: int,
    n: int,
    *,
    variant: str = "seed",
) -> int:
    """Theorem 10. ``variant="seed"``: kL + 1 gradient releases (thesis text, code 9c834d7);
    ``"head"``: k(L + 1) releases (author's final code, gradient recomputed every iteration)."""
    rho = zcdp_rho(epsilon, delta)
    rho_l, rho_g = 1.0 / (2.0 * tau_l**2 * n), 1.0 / (2.0 * tau_g**2 * n)
    if variant == "seed":
        return math.floor((rho - rho_g) / (rho_l + L * rho_g))
    if variant == "head":
        return math.floor(rho / (rho_l + (L + 1) * rho_g))
    raise ValueError(f"unknown HMC variant {variant!r}")


# ------------------------------------------------------------------------ Gaussian PLD (Thms 6, 11)
def gaussian_pld_delta(epsilon: float, mu: float | np.ndarray) -> float | np.ndarray:
    """Tight delta(epsilon) of the privacy-loss distribution N(mu, 2 mu).

    delta = 1/2 [erfc((eps - mu)/(2 sqrt mu)) - e^eps erfc((eps + mu)/(2 sqrt mu))]
          = Phi(a) - e^eps Phi(b),  a = (mu - eps)/sqrt(2 mu),  b = -(mu + eps)/sqrt(2 mu).
    Both terms are taken as logs (log_ndtr) so e^eps Phi(b) neither overflows nor underflows, and
    the difference is log Phi(a) + log(1 - exp(eps + log Phi(b) - log Phi(a))).
    """
    mu_arr = np.asarray(mu, dtype=float)
    safe = np.where(mu_arr > 0, mu_arr, 1.0)
    s = np.sqrt(2.0 * safe)
    log_a = log_ndtr((safe - epsilon) / s)
    log_b = epsilon + log_ndtr(-(safe + epsilon) / s)
    with np.errstate(divide="ignore"):  # exact cancellation (delta = 0) gives log 0 = -inf
        log_delta = log_a + np.log(-np.expm1(np.minimum(log_b - log_a, 0.0)))
    out = np.where(mu_arr > 0, np.exp(log_delta), 0.0)  # k = 0 releases nothing
    return float(out) if out.ndim == 0 else out


def penalty_mu(k: float, tau: float, n: int) -> float:
    """Theorem 6 (alpha = 1/2): k releases of sensitivity 1 with noise variance tau^2 n."""
    return k / (2.0 * tau**2 * n)


def hmc_mu(k: float, tau_l: float, tau_g: float, L: int, n: int, *, variant: str = "seed") -> float:
    """Theorem 11: k log-likelihood-ratio releases plus G gradient releases, G = kL + 1 (seed
    thesis text and code 9c834d7: the first gradient is released once before the loop and then
    reused from the last accepted trajectory) or G = k(L + 1) (``variant="head"``)."""
    if variant == "seed":
        grads = k * L + 1
    elif variant == "head":
        grads = k * (L + 1)
    else:
        raise ValueError(f"unknown HMC variant {variant!r}")
    return k / (2.0 * tau_l**2 * n) + grads / (2.0 * tau_g**2 * n)


# ----------------------------------------------------------------------- subsampled RDP (Thms 7, 8)
def _log_binom(a: np.ndarray, j: np.ndarray) -> np.ndarray:
    return gammaln(a + 1.0) - gammaln(j + 1.0) - gammaln(a - j + 1.0)


def subsampled_rdp(
    alphas: np.ndarray | int,
    q: float,
    step_rdp: Callable[[np.ndarray], np.ndarray],
    *,
    sum_to_alpha_minus_one: bool = False,
) -> np.ndarray:
    """RDP eps(alpha) of one subsampled step, the bound printed in Theorems 7 and 8:

    eps(alpha) = ln(1 + q^2 C(alpha,2) min{4(e^{e'(2)} - 1), 2 e^{e'(2)}}
                    + 2 sum_{j=3}^{alpha} q^j C(alpha,j) e^{(j-1) e'(j)}) / (alpha - 1),

    i.e. [WBK19, Theorem 9] for sampling without replacement and the substitute relation, with
    its min{2, (e^{eps(inf)} - 1)^j} factors bounded by 2 (the Gaussian has eps(inf) = inf).
    Summed with logsumexp, so large alpha cannot overflow (e^{(j-1) e'(j)} exceeds 1e308 there).
    ``step_rdp(j)`` is the unsampled mechanism's RDP e'(j), vectorised over integer j.
    ``sum_to_alpha_minus_one=True`` reproduces the author's minibatch code, whose sum stops at
    j = alpha - 1 (the thesis sums to alpha); it only matters for Fig 6.1.
    """
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if np.any(alphas < 2) or np.any(alphas != np.round(alphas)):
        raise ValueError("the bound needs integer orders alpha >= 2")
    log_q = math.log(q)
    e2 = float(step_rdp(np.array([2.0]))[0])
    # log of min{4 (e^{e2} - 1), 2 e^{e2}}
    log_min2 = min(math.log(4.0) + math.log(math.expm1(e2)), math.log(2.0) + e2)
    terms = [
        np.zeros_like(alphas),
        2 * log_q + _log_binom(alphas, np.full_like(alphas, 2.0)) + log_min2,
    ]
    j = np.arange(3.0, alphas.max() + 1.0)
    if j.size:
        log_tj = math.log(2.0) + j * log_q + (j - 1.0) * step_rdp(j)
        last = alphas - 1.0 if sum_to_alpha_minus_one else alphas
        keep = j[None, :] <= last[:, None]
        jj = np.where(keep, j[None, :], 0.0)  # masked entries get log C(alpha, 0); dropped below
        body = np.where(keep, log_tj[None, :] + _log_binom(alphas[:, None], jj), -np.inf)
        terms.append(logsumexp(body, axis=1))
    return logsumexp(np.stack(terms), axis=0) / (alphas - 1.0)


def gaussian_step_rdp(tau: float) -> Callable[[np.ndarray], np.ndarray]:
    """Theorem 8: the normalised minibatch release (sensitivity 1, variance tau) has
    e'(j) = j/(2 tau)."""
    return lambda j: np.asarray(j, dtype=float) / (2.0 * tau)


def barker_step_rdp(batch_size: int) -> Callable[[np.ndarray], np.ndarray]:
    """Theorem 7: one DP Barker step on a batch of size B, for j < B/5:
    e'(j) = 5/(2B) + ln(2B/(B - 5j))/(2(j - 1)) + 2j/(B - 5j)."""
    B = float(batch_size)

    def step(j: np.ndarray) -> np.ndarray:
        j = np.asarray(j, dtype=float)
        gap = B - 5.0 * j
        return 5.0 / (2.0 * B) + np.log(2.0 * B / gap) / (2.0 * (j - 1.0)) + 2.0 * j / gap

    return step


@lru_cache(maxsize=64)
def _barker_orders(batch_size: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    # The author's range alpha = 3 .. B//5 - 1 (Theorem 7 needs alpha < B/5). The author's
    # linear-space sum stops at the first overflow; in log space those orders stay finite and,
    # being huge, never win the minimum, so scanning the whole range gives the same answer.
    alphas = np.arange(3.0, batch_size // 5)
    return alphas, subsampled_rdp(alphas, batch_size / n, barker_step_rdp(batch_size))


def barker_epsilon(k: float, delta: float, batch_size: int, n: int) -> float:
    """epsilon after k DP Barker steps: min_alpha k eps(alpha) - ln(delta)/(alpha - 1)
    (Thms 7, 1)."""
    alphas, rdp = _barker_orders(batch_size, n)
    return float(np.min(k * rdp - math.log(delta) / (alphas - 1.0)))


def minibatch_rdp_iterations(
    epsilon: float,
    delta: float,
    tau: float,
    batch_size: int,
    n: int,
    *,
    sum_to_alpha_minus_one: bool = False,
) -> int:
    """Minibatch DP penalty count via RDP (Theorem 8 + Theorem 1), as the author computed it for
    Fig 6.1: max over alpha = 2..199 of int((eps - ln(1/delta)/(alpha - 1)) / eps(alpha))."""
    alphas = np.arange(2.0, 200.0)
    rdp = subsampled_rdp(
        alphas,
        batch_size / n,
        gaussian_step_rdp(tau),
        sum_to_alpha_minus_one=sum_to_alpha_minus_one,
    )
    k = np.trunc((epsilon + math.log(delta) / (alphas - 1.0)) / rdp)  # int() truncates toward 0
    return max(int(k.max()), 0)


# --------------------------------------------------------------------------- numerical accountant
@lru_cache(maxsize=32)
def _subsampled_gaussian_pld(tau: float, q: float, interval: float):  # noqa: ANN202 (library type)
    # Imported here: dp-accounting takes about a second to import and only this accountant needs it.
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution

    # REPLACE_ONE with a sampling probability gives the pair of mixtures
    # (1-q) N(0, tau) + q N(-1, tau) vs (1-q) N(0, tau) + q N(+1, tau): the substitute-relation
    # pair of the Fourier accountant's get_delta_S [KJH20] (sampling without replacement, q = B/n).
    # This is the same call PLDAccountant makes for PoissonSampledDpEvent(q, GaussianDpEvent);
    # building one step once and self-composing avoids rebuilding it at every bisection step.
    return privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=math.sqrt(tau),
        sensitivity=1.0,
        sampling_prob=q,
        value_discretization_interval=interval,
        neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE,
    )


def minibatch_pld_delta(
    k: float, epsilon: float, tau: float, batch_size: int, n: int, *, interval: float = 1e-4
) -> float:
    """delta(epsilon) of int(k) minibatch DP penalty steps (noise multiplier sqrt(tau), q = B/n).

    Event and relation: dp-accounting's PLD accountant has no SampledWithoutReplacementDpEvent
    (only its RDP accountant does), but its subsampled Gaussian under REPLACE_ONE (what
    ``PLDAccountant`` builds for ``PoissonSampledDpEvent(q, GaussianDpEvent(sqrt(tau)))``) uses
    the pair (1-q) N(0, tau) + q N(-1, tau) vs (1-q) N(0, tau) + q N(1, tau), which is exactly
    the substitute / without-replacement pair of the author's ``fourier-accountant``
    ``get_delta_S``: one changed record, present in the batch with probability q = B/n.
    ADD_OR_REMOVE_ONE would model a different relation than the thesis's substitute one.

    Numerics: the library's rounding is pessimistic (delta is an upper bound; error of order
    ``interval`` in the privacy loss per step); the Fourier accountant (L = 20, nx = 1e6) is a
    grid approximation without a direction, so counts can differ by one where delta(k) lies
    within ~1e-4 relative of the target. Non-integer k is rounded down, as ``get_delta_S`` does.
    """
    count = int(k)
    if count <= 0:
        return 0.0
    pld = _subsampled_gaussian_pld(float(tau), batch_size / n, float(interval))
    return float(pld.self_compose(count).get_delta_for_epsilon(epsilon))


# --------------------------------------------------------------------------- Algorithm 2
def max_iterations(
    loss: Callable[[float], float], target: float, low: float = 0.0, high: float | None = None
) -> int:
    """Algorithm 2: the largest integer k with ``loss(k) < target``, for ``loss`` increasing in k.

    ``loss`` is delta(k) at fixed epsilon (Theorems 6, 11, Fourier/PLD) or epsilon(k) at fixed
    delta (Theorem 7). ``low`` must satisfy the target (the zCDP count, or 0); ``high`` starts at
    max(low, 1) (thesis) or 1024 (subsampled accountants) and doubles until it violates it. The
    bisection runs on real k, as the thesis does (Theorems 6 and 11 accept non-integer k). As
    printed, a midpoint with loss exactly equal to the target moves ``low``, so an exact tie
    counts as admissible; with continuous losses such ties do not occur.
    """
    high = max(low, 1.0) if high is None else float(high)
    while loss(high) < target:
        high *= 2.0
        if high > _HIGH_CAP:
            raise RuntimeError("privacy loss does not reach the target; no finite iteration bound")
    while math.floor(high) - math.floor(low) > 1:
        new = 0.5 * (high + low)
        if loss(new) > target:
            high = new
        else:
            low = new
    top = math.floor(high)
    return top if loss(top) < target else math.floor(low)


# --------------------------------------------------------------------------- public entry point
def _check(algorithm: str) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {ALGORITHMS}")


def zcdp_iteration_count(
    algorithm: str,
    params: Mapping[str, float],
    n: int,
    epsilon: float,
    delta: float,
    *,
    hmc_variant: str = "seed",
) -> int:
    """zCDP-only count (Theorem 5 for dpps/dppa, Theorem 10 for hmc), the loose accountant
    of Fig 6.1."""
    _check(algorithm)
    if algorithm in ("dpps", "dppa"):
        return zcdp_iterations_penalty(epsilon, delta, params["tau"], n)
    if algorithm == "hmc":
        return zcdp_iterations_hmc(
            epsilon,
            delta,
            params["tau_l"],
            params["tau_g"],
            int(params["L"]),
            n,
            variant=hmc_variant,
        )
    raise ValueError(f"{algorithm} has no zCDP accountant")


def iteration_count(
    algorithm: str,
    params: Mapping[str, float],
    n: int,
    epsilon: float,
    delta: float,
    *,
    hmc_variant: str = "seed",
    pld_interval: float = 1e-4,
) -> int:
    """Largest iteration count within (epsilon, delta) with the thesis's best accountant.

    ``params`` uses the keys of ``config/data/raisa2021/params.yaml``: dpps/dppa ``tau``; hmc
    ``tau_l``, ``tau_g``, ``L``; mdpps/mdppa ``tau_variance_multiplier``, ``batch_size``; barker
    ``batch_size``. The caller passes delta (the thesis uses 0.1/n).
    """
    _check(algorithm)
    if algorithm in ("dpps", "dppa", "hmc"):
        if algorithm == "hmc":
            tau_l, tau_g, L = params["tau_l"], params["tau_g"], int(params["L"])
            mu = partial(hmc_mu, tau_l=tau_l, tau_g=tau_g, L=L, n=n, variant=hmc_variant)
        else:
            mu = partial(penalty_mu, tau=params["tau"], n=n)
        # the zCDP count is the lower end; HMC's seed variant can make it negative (the one
        # up-front gradient alone may exceed the budget), the penalty count never is
        low = zcdp_iteration_count(algorithm, params, n, epsilon, delta, hmc_variant=hmc_variant)
        return max_iterations(lambda k: gaussian_pld_delta(epsilon, mu(k)), delta, low=max(low, 0))
    if algorithm in ("mdpps", "mdppa"):
        tau, B = params["tau_variance_multiplier"], int(params["batch_size"])
        return max_iterations(
            lambda k: minibatch_pld_delta(k, epsilon, tau, B, n, interval=pld_interval),
            delta,
            low=0.0,
            high=_HIGH_START_SUBSAMPLED,
        )
    B = int(params["batch_size"])  # barker: epsilon(k) against the epsilon target
    return max_iterations(
        lambda k: barker_epsilon(k, delta, B, n), epsilon, low=0.0, high=_HIGH_START_SUBSAMPLED
    )
