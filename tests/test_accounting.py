"""dpinfer.accounting: the accountants of Räisä (2021) against the author's iteration counts
(config/data/raisa2021/params.yaml, code state 9c834d7 = seed thesis) and against dp-accounting."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import dp_accounting
import mpmath
import numpy as np
import pytest
import yaml
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

from dpinfer import accounting as acc

# the author's hyperparameters and counts, copied into config/data with their origin (ORIGIN.md)
PARAMS_PATH = Path(__file__).resolve().parents[1] / "config" / "data" / "raisa2021" / "params.yaml"


def _load_params() -> dict:
    # A missing file is an error, never a skip: these tests are the accountants' reference.
    return yaml.safe_load(PARAMS_PATH.read_text(encoding="utf-8"))


PARAMS = _load_params()
MODELS: dict = PARAMS["models"]

# Minibatch DP penalty counts where dp-accounting's PLD (REPLACE_ONE, interval 1e-4) allows one
# iteration fewer than the author's Fourier accountant. At the author's k the library's delta is
# 1.0001-1.0003 x the target (pessimistic rounding of the privacy loss, an upper bound), while
# the Fourier accountant's grid approximation fell just below it; one more step changes delta by
# about 0.2 %, so these are ties within the resolution of either accountant.
KNOWN_MINIBATCH_DIFFERENCES = {  # (model, algorithm, epsilon): dp-accounting count
    ("tempered-2d", "mdpps", 6.0): 6542,  # author 6543
    ("tempered-10d", "mdpps", 5.0): 8494,  # author 8495
    ("tempered-10d", "mdppa", 2.0): 2845,  # author 2846
    ("tempered-10d", "mdppa", 3.0): 5974,  # author 5975
}


def _seed_hyper(model: str, algo: str) -> dict:
    m = MODELS[model]
    return {**m["algorithms"][algo], **m["seed_version_overrides"].get(algo, {})}


def _seed_cases(algos: tuple[str, ...]) -> list:
    cases = []
    for model, m in MODELS.items():
        for algo in algos:
            if algo not in m["algorithms"]:
                continue
            counts = m["iterations_seed_version"].get(algo) or m["iterations_head"][algo]
            for eps, k in counts.items():
                cases.append(
                    pytest.param(model, algo, float(eps), int(k), id=f"{model}-{algo}-{eps}")
                )
    return cases


def _loss(model: str, algo: str, eps: float):
    """The privacy loss Algorithm 2 bisects on and the target it is compared with."""
    n, hp = MODELS[model]["n"], _seed_hyper(model, algo)
    delta = 0.1 / n
    if algo in ("dpps", "dppa"):
        return (lambda k: acc.gaussian_pld_delta(eps, acc.penalty_mu(k, hp["tau"], n))), delta
    if algo == "hmc":
        tau_l, tau_g, L = hp["tau_l"], hp["tau_g"], hp["L"]
        return (lambda k: acc.gaussian_pld_delta(eps, acc.hmc_mu(k, tau_l, tau_g, L, n))), delta
    if algo == "barker":
        return (lambda k: acc.barker_epsilon(k, delta, hp["batch_size"], n)), eps
    return (
        lambda k: _minibatch_delta(k, eps, hp["tau_variance_multiplier"], hp["batch_size"], n)
    ), delta


@cache
def _minibatch_delta(k: int, eps: float, tau: float, batch: int, n: int) -> float:
    return acc.minibatch_pld_delta(k, eps, tau, batch, n)


# ----------------------------------------------------------------------- closed form vs library
# (epsilon, mu): penalty easy-2d k = 56 and 1431, circle k = 89646, HMC easy-2d seed k = 880
PLD_CASES = [
    (1.0, acc.penalty_mu(56, 0.1, 100_000)),
    (6.0, acc.penalty_mu(1431, 0.1, 100_000)),
    (1.0, acc.penalty_mu(89646, 4.0, 100_000)),
    (6.0, acc.hmc_mu(880, 0.1, 0.4, 10, 100_000)),
]


@pytest.mark.parametrize(("eps", "mu"), PLD_CASES)
def test_gaussian_pld_delta_matches_dp_accounting_pld(eps: float, mu: float) -> None:
    # One Gaussian with total mu has PLD N(mu, 2 mu). The library's connect-the-dots PLD at
    # interval 1e-4 reproduces it to ~1e-13 relative (measured), so 1e-11 leaves margin.
    lib = dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=1.0 / math.sqrt(2.0 * mu), value_discretization_interval=1e-4
    ).get_delta_for_epsilon(eps)
    assert acc.gaussian_pld_delta(eps, mu) == pytest.approx(lib, rel=1e-11, abs=0)


def test_gaussian_pld_delta_matches_composed_accountant() -> None:
    # k-fold composition through PLDAccountant: the discretisation error accumulates over the
    # FFT self-composition; measured 2e-10 relative (about 2e-16 absolute at delta ~ 1e-6).
    n, k, eps = 100_000, 56, 1.0
    pen = PLDAccountant(value_discretization_interval=1e-4)
    pen.compose(dp_accounting.GaussianDpEvent(0.1 * math.sqrt(n)), k)
    ours = acc.gaussian_pld_delta(eps, acc.penalty_mu(k, 0.1, n))
    assert ours == pytest.approx(pen.get_delta(eps), rel=1e-9)
    # Theorem 11: k ratio releases (tau_l) and kL + 1 gradient releases (tau_g), easy-2d seed HMC.
    k, L, eps = 34, 10, 1.0
    hmc = PLDAccountant(value_discretization_interval=1e-4)
    hmc.compose(dp_accounting.GaussianDpEvent(0.1 * math.sqrt(n)), k)
    hmc.compose(dp_accounting.GaussianDpEvent(0.4 * math.sqrt(n)), k * L + 1)
    ours = acc.gaussian_pld_delta(eps, acc.hmc_mu(k, 0.1, 0.4, L, n))
    assert ours == pytest.approx(hmc.get_delta(eps), rel=1e-9)


@pytest.mark.parametrize(
    ("eps", "mu"), [(800.0, 1000.0), (30.0, 2.0), (0.01, 1e-6), (6.0, 0.0143), (1.0, 0.5)]
)
def test_gaussian_pld_delta_is_numerically_safe(eps: float, mu: float) -> None:
    # e^800 overflows and e^eps erfc(.) cancels for tiny mu; 60-digit mpmath is the reference.
    # Measured error <= 6e-11 relative (the cancellation cases); naive float code gives nan/garbage.
    with mpmath.workdps(60):
        e, m = mpmath.mpf(eps), mpmath.mpf(mu)
        s = 2 * mpmath.sqrt(m)
        ref = float((mpmath.erfc((e - m) / s) - mpmath.exp(e) * mpmath.erfc((e + m) / s)) / 2)
    assert acc.gaussian_pld_delta(eps, mu) == pytest.approx(ref, rel=1e-9)
    assert acc.gaussian_pld_delta(eps, 0.0) == 0.0


def test_subsampled_gaussian_rdp_matches_rdp_accountant() -> None:
    # dp-accounting's SampledWithoutReplacementDpEvent (REPLACE_ONE) implements [WBK19] Thm 27:
    # for orders <= 256 each j-term is min(forward-difference bound, 2 e^{(j-1) e'(j)}), which is
    # never larger than the thesis's term. At q <= 0.01 and tau >= 0.5 the second term is always
    # the smaller, so the two bounds are the same formula; they then differ only by float
    # summation order (measured <= 6e-15 relative), hence rtol 1e-12.
    orders = np.array([2, 3, 4, 5, 8, 16, 32, 64, 128, 199])
    for tau, batch, n in [(0.9, 1000, 100_000), (1.6, 1000, 200_000)]:
        lib = RdpAccountant(
            orders.astype(float).tolist(), dp_accounting.NeighboringRelation.REPLACE_ONE
        )
        gauss = dp_accounting.GaussianDpEvent(math.sqrt(tau))
        lib.compose(dp_accounting.SampledWithoutReplacementDpEvent(n, batch, gauss))
        ours = acc.subsampled_rdp(orders, batch / n, acc.gaussian_step_rdp(tau))
        np.testing.assert_allclose(ours, lib._rdp, rtol=1e-12)
        # The author's code stops the sum at alpha - 1: a smaller bound for alpha >= 3.
        step = acc.gaussian_step_rdp(tau)
        code = acc.subsampled_rdp(orders, batch / n, step, sum_to_alpha_minus_one=True)
        assert code[0] == ours[0] and np.all(code[1:] < ours[1:])


def test_pld_accountant_event_route_equals_direct_call() -> None:
    # The module builds one step with from_gaussian_mechanism(..., REPLACE_ONE) and self-composes;
    # PLDAccountant does the same for PoissonSampledDpEvent, so the two must agree.
    tau, batch, n, k, eps = 0.9, 1000, 100_000, 39, 1.0
    lib = PLDAccountant(
        dp_accounting.NeighboringRelation.REPLACE_ONE, value_discretization_interval=1e-4
    )
    gauss = dp_accounting.GaussianDpEvent(math.sqrt(tau))
    lib.compose(dp_accounting.PoissonSampledDpEvent(batch / n, gauss), k)
    assert acc.minibatch_pld_delta(k, eps, tau, batch, n) == pytest.approx(
        lib.get_delta(eps), rel=1e-12
    )


# ----------------------------------------------------------------------- Algorithm 2
def test_max_iterations_returns_largest_admissible_k() -> None:
    assert acc.max_iterations(lambda k: k / 1000.0, 0.4995) == 499
    assert acc.max_iterations(lambda k: k / 1000.0, 0.4995, low=0.0, high=1024.0) == 499
    assert acc.max_iterations(lambda k: -math.expm1(-k / 300.0), 0.8) == 482  # 300 ln 5 = 482.8
    assert acc.max_iterations(lambda k: k / 1000.0, 0.5 + 1e-9, low=123.0) == 500
    assert acc.max_iterations(lambda k: k + 0.5, 1.0) == 0  # one iteration already exceeds it
    with pytest.raises(RuntimeError):
        acc.max_iterations(lambda k: 0.0, 1.0)


# ----------------------------------------------------------------------- the author's counts
@pytest.mark.parametrize(
    ("model", "algo", "eps", "k"), _seed_cases(("dpps", "dppa", "hmc", "barker"))
)
def test_counts_equal_author_seed_version(model: str, algo: str, eps: float, k: int) -> None:
    n = MODELS[model]["n"]
    assert acc.iteration_count(algo, _seed_hyper(model, algo), n, eps, 0.1 / n) == k
    loss, target = _loss(model, algo, eps)
    assert loss(k) < target <= loss(k + 1)  # k is the largest admissible count


@pytest.mark.parametrize(("model", "algo", "eps", "k"), _seed_cases(("mdpps", "mdppa")))
def test_minibatch_counts_bracket(model: str, algo: str, eps: float, k: int) -> None:
    # Algorithm 2 returns the largest k with delta(k) < target (tested above), so checking
    # delta at k and k + 1 is the count check at 2 instead of ~20 PLD self-compositions.
    expected = KNOWN_MINIBATCH_DIFFERENCES.get((model, algo, eps), k)
    loss, target = _loss(model, algo, eps)
    assert loss(expected) < target <= loss(expected + 1)
    if expected != k:  # a tie within the accountants' resolution, not a modelling difference
        assert expected == k - 1 and loss(k) < target * (1 + 5e-4)


@pytest.mark.parametrize(
    ("model", "algo", "eps"), [("easy-2d", "mdpps", 1.0), ("tempered-10d", "mdppa", 2.0)]
)
def test_minibatch_iteration_count_end_to_end(model: str, algo: str, eps: float) -> None:
    n = MODELS[model]["n"]
    counts = MODELS[model]["iterations_seed_version"][algo]
    expected = KNOWN_MINIBATCH_DIFFERENCES.get((model, algo, eps), counts[int(eps)])
    assert acc.iteration_count(algo, _seed_hyper(model, algo), n, eps, 0.1 / n) == expected


@pytest.mark.parametrize("model", list(MODELS))
def test_hmc_head_counts(model: str) -> None:
    # The author's final code releases k(L + 1) gradients; same accountant, other variant.
    n, hp = MODELS[model]["n"], MODELS[model]["algorithms"]["hmc"]
    for eps, k in MODELS[model]["iterations_head"]["hmc"].items():
        assert acc.iteration_count("hmc", hp, n, float(eps), 0.1 / n, hmc_variant="head") == k


@pytest.mark.parametrize("model", [m for m in MODELS if "iterations_head_zcdp_only" in MODELS[m]])
def test_zcdp_only_counts(model: str) -> None:
    n = MODELS[model]["n"]
    for algo, counts in MODELS[model]["iterations_head_zcdp_only"].items():
        hp = MODELS[model]["algorithms"][algo]
        for eps, k in counts.items():
            assert (
                acc.zcdp_iteration_count(algo, hp, n, float(eps), 0.1 / n, hmc_variant="head") == k
            )


def test_fig_6_1_values_at_epsilon_6() -> None:
    fig = PARAMS["accountant_comparison_fig_6_1"]
    n, delta, eps = fig["n"], fig["delta"], 6.0
    runs = [("seed", "seed_version_values_at_eps6", 0.9), ("head", "head_values_at_eps6", 0.7)]
    for variant, key, tau_mb in runs:
        want = fig[key]
        assert acc.zcdp_iterations_penalty(eps, delta, 0.1, n) == want["penalty_zcdp"]
        assert acc.iteration_count("dpps", {"tau": 0.1}, n, eps, delta) == want["penalty_pld"]
        hmc = {"tau_l": 0.1, "tau_g": 0.4, "L": 10}
        assert (
            acc.zcdp_iteration_count("hmc", hmc, n, eps, delta, hmc_variant=variant)
            == want["hmc_zcdp"]
        )
        assert (
            acc.iteration_count("hmc", hmc, n, eps, delta, hmc_variant=variant) == want["hmc_pld"]
        )
        # The author's RDP curve sums j = 3..alpha-1; the thesis formula (to alpha) allows fewer.
        code = acc.minibatch_rdp_iterations(
            eps, delta, tau_mb, 1000, n, sum_to_alpha_minus_one=True
        )
        assert code == want["minibatch_rdp"]
        assert acc.minibatch_rdp_iterations(eps, delta, tau_mb, 1000, n) < code
