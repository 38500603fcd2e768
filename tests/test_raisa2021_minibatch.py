"""raisa2021 batch samplers and the clipping study's samplers: V_corr against the logistic, the
Barker test's transition probabilities, the batch pass against per-row numpy, Theorem 8's
sensitivity, detection of dropped corrections, the batch-variance guard, the clip-threshold
rules, exact gradients and the count of decisions clipping changed. The exact-posterior checks
of mdpps, mdppa and barker are in tests/exact/raisa2021.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer.models import dp_mcmc
from dpinfer.models.barker_correction import (
    acceptance_probability,
    correction_density_error,
    load_vcorr,
)
from dpinfer.models.dp_mcmc_batch import clipped_llr_batch, draw_batch
from dpinfer.samplers.dp_barker import barker_accepts, run_dp_barker
from dpinfer.samplers.dp_hmc import run_dp_hmc
from dpinfer.samplers.dp_minibatch import minibatch_sensitivity, run_minibatch_penalty
from dpinfer.samplers.dp_penalty import run_dp_penalty
from tests.exact.raisa2021 import (
    VCORR_FILE,
    exact_moments,
    identical_moments,
    identical_rows,
    minibatch_hyper,
    small_banana,
)
from tests.harness import ExactCase, check_exact, z_scores
from tests.test_raisa2021_models import loglik_rows, random_pair, spec_problem


@pytest.fixture(scope="module")
def vcorr():
    return load_vcorr(VCORR_FILE)


# ----------------------------------------------------------------- V_corr and the Barker test
def test_vcorr_plus_gaussian_is_the_logistic_density(vcorr):
    assert correction_density_error(vcorr) < 5e-3  # on [-10, 10]; the author's fit: 4.5e-3
    var = float((vcorr["weights"] * (vcorr["means"] ** 2 + vcorr["sds"] ** 2)).sum())
    assert abs(var - (math.pi**2 / 3 - 2.0)) < 0.02  # Var V_corr = Var logistic - C
    assert abs(float((vcorr["weights"] * vcorr["means"]).sum())) < 1e-12  # symmetric


def test_a_wrong_correction_is_rejected(vcorr):
    # the same mixture used with C = 1 (the other fit's variance) is far from the logistic
    assert correction_density_error(vcorr, total_variance=1.0) > 2e-2


def test_barker_acceptance_probability_is_the_logistic(vcorr):
    lam = np.linspace(-15, 15, 601)
    assert np.abs(acceptance_probability(lam, vcorr) - 1.0 / (1.0 + np.exp(-lam))).max() < 5e-3


@pytest.mark.parametrize("batch_variance", [0.0, 0.6])
def test_barker_test_accepts_with_its_exact_probability(vcorr, batch_variance):
    """Empirical acceptance of the sampler's own test at fixed lambda against the mixture's
    exact probability (with a batch variance the test injects C - sigma_b^2 only)."""
    rng = np.random.default_rng(7)
    cum = np.cumsum(vcorr["weights"])
    m = 40_000
    for lam in (-3.0, -0.7, 0.0, 1.2, 4.0):
        hits = sum(
            barker_accepts(lam, batch_variance, 2.0, vcorr["means"], vcorr["sds"], cum, rng)
            for _ in range(m)
        )
        p = float(acceptance_probability(lam, vcorr, 2.0, batch_variance))
        assert abs(hits / m - p) < 4.5 * math.sqrt(p * (1 - p) / m), (lam, hits / m, p)
        if batch_variance > 0:  # the top-up noise really is smaller: P differs from the full-C test
            assert abs(p - float(acceptance_probability(lam, vcorr))) > 1e-3 or lam == 0.0


def test_barker_chain_on_a_discrete_target_has_the_exact_transition_probabilities(vcorr):
    """Five states on a cycle, proposals +-1, lambda = log pi_j / pi_i and no batch variance:
    the empirical acceptance of every move matches the exact kernel, and that kernel satisfies
    detailed balance with pi up to the V_corr error."""
    pi = np.array([1.0, 3.0, 2.0, 5.0, 0.5])
    pi /= pi.sum()
    k = pi.size
    acc = np.zeros((k, k))
    for i in range(k):
        for j in ((i + 1) % k, (i - 1) % k):
            acc[i, j] = float(acceptance_probability(math.log(pi[j] / pi[i]), vcorr))
    flow = pi[:, None] * acc
    assert (
        np.abs(flow - flow.T).max() < 5e-3 * pi.max()
    )  # detailed balance, within the mixture's error
    rng = np.random.default_rng(11)
    cum = np.cumsum(vcorr["weights"])
    tried = np.zeros((k, k))
    took = np.zeros((k, k))
    state = 0
    for _ in range(150_000):
        new = (state + (1 if rng.random() < 0.5 else -1)) % k
        ok = barker_accepts(
            math.log(pi[new] / pi[state]), 0.0, 2.0, vcorr["means"], vcorr["sds"], cum, rng
        )
        tried[state, new] += 1
        took[state, new] += ok
        state = new if ok else state
    mask = tried > 0
    p = acc[mask]
    z = (took[mask] / tried[mask] - p) / np.sqrt(p * (1 - p) / tried[mask])
    assert np.abs(z).max() < 4.5, z


# --------------------------------------------------------------------------- batch passes
@pytest.mark.parametrize("key", ["banana", "tempered-10d", "gauss", "circle"])
def test_batch_pass_matches_per_row_numpy(key):
    pb = spec_problem(key)
    rng = np.random.default_rng(2)
    theta, new = random_pair(pb, rng, 0.3 if pb.kind == 2 else 0.01)
    full = loglik_rows(pb, new)[0] - loglik_rows(pb, theta)[0]
    rows = rng.permutation(pb.n)
    for size, q in ((1, 0.5), (700, 0.9), (pb.n, 0.3)):
        thr = float(np.quantile(np.abs(full), q))
        r = np.clip(full[rows[:size]], -thr, thr)
        mean, var, cnt = clipped_llr_batch(pb.kind, pb.params, pb.data, theta, new, thr, rows, size)
        assert mean == pytest.approx(r.mean(), rel=1e-9, abs=1e-12)
        assert var == pytest.approx(r.var(), rel=1e-7, abs=1e-14)
        assert cnt == int(np.sum(np.abs(full[rows[:size]]) > thr))


def test_draw_batch_gives_uniform_subsets_without_replacement():
    rng = np.random.default_rng(3)
    n, size, reps = 50, 7, 20_000
    perm = np.arange(n)
    hits = np.zeros(n)
    for _ in range(reps):
        draw_batch(perm, size, rng)
        assert len(set(perm[:size].tolist())) == size
        hits[perm[:size]] += 1
    assert sorted(perm.tolist()) == list(range(n))
    assert stats.chisquare(hits).pvalue > 1e-4


def test_minibatch_sensitivity_is_theorem_8():
    n, b, t, bound, d = 1000, 50, 0.3, 1.7, 0.02
    nt_b = n * t / b
    want = (
        2 * n * t * bound / b * d
        + nt_b**2 * abs(1 - 1 / b) * bound**2 * d**2
        + 2 * (b - 1) / b * nt_b**2 * bound**2 * d**2
    )
    assert minibatch_sensitivity(n, b, t, bound, d) == pytest.approx(want, rel=1e-14)


# --------------------------------------------------------------------------- corrections and guards
@pytest.mark.parametrize("one_component", [False, True], ids=["mdpps", "mdppa"])
def test_minibatch_penalty_without_its_corrections_is_detected(one_component):
    pb = identical_rows()
    h = minibatch_hyper(one_component)
    chain = run_minibatch_penalty(
        pb,
        pb.theta_true,
        300_000,
        tau=h["tau_variance_multiplier"],
        prop_sd=h["prop_sd"],
        clip_bound=h["clip_bound"],
        batch_size=h["batch_size"],
        rng=np.random.default_rng(23),
        one_component=one_component,
        penalty_correction=False,
    )
    mean, sd = identical_moments()
    assert chain.info.clipped["llr"] == 0
    _, _, z_mean, z_sd = z_scores(chain.kept, mean, sd, 0.0, 0.0)
    assert max(z_mean.max(), z_sd.max()) > 5.0


def test_barker_rejects_and_counts_proposals_beyond_the_variance_bound(vcorr):
    """With C = 1 no batch variance is admissible: every proposal with a spread batch is rejected
    and counted, and the chain stays at its start (the author's code stopped, leaving zeros)."""
    pb = small_banana()
    start = pb.theta_true + 0.1
    chain = run_dp_barker(
        pb,
        start,
        500,
        prop_sd=0.1,
        batch_size=10,
        vcorr=vcorr,
        rng=np.random.default_rng(1),
        total_variance=1.0,
    )
    assert chain.info.detail.batch_variance_rejections == 500
    assert chain.info.acceptance == 0.0
    assert np.all(chain.draws == start)


def test_barker_batch_variance_stays_within_the_bound_when_clipped(vcorr):
    pb = small_banana()
    chain = run_dp_barker(
        pb,
        pb.theta_true,
        3000,
        prop_sd=1.0,
        batch_size=10,
        vcorr=vcorr,
        rng=np.random.default_rng(2),
    )
    assert chain.info.detail.llr_clip_fraction > 0.1  # heavily clipped at T n = 20 ...
    assert chain.info.detail.batch_variance_rejections == 0  # ... so sigma_b^2 <= 0.9801 < 1


def test_batch_samplers_are_deterministic(vcorr):
    pb = identical_rows()
    h = minibatch_hyper(True)
    runs = [
        run_minibatch_penalty(
            pb,
            pb.theta_true,
            500,
            tau=0.5,
            prop_sd=h["prop_sd"],
            clip_bound=0.5,
            batch_size=30,
            rng=np.random.default_rng(5),
            one_component=True,
        ).draws
        for _ in range(2)
    ]
    assert np.array_equal(*runs)
    runs = [
        run_dp_barker(
            pb,
            pb.theta_true,
            500,
            prop_sd=0.1,
            batch_size=30,
            vcorr=vcorr,
            rng=np.random.default_rng(5),
        ).draws
        for _ in range(2)
    ]
    assert np.array_equal(*runs)


# -------------------------------------------------------------- the clipping study's samplers
def test_clip_threshold_rules():
    theta, new = np.array([0.0, 3.0, 1.0]), np.array([0.3, 2.6, 1.0])
    assert dp_mcmc.clip_threshold(theta, new, 2.0, 0) == pytest.approx(2.0 * 0.5)
    assert dp_mcmc.clip_threshold(theta, new, 2.0, 1) == pytest.approx(2.0 * 0.1)  # |0.3 - 0.4|


def test_exact_gradient_fast_path_equals_the_full_pass():
    pb = dp_mcmc.make_problem(
        "t", dict(family="banana", dim=10, n=2000, a=20.0), np.random.default_rng(4)
    )
    theta = pb.theta_true + 0.01
    fast, slow = np.empty(10), np.empty(10)
    assert dp_mcmc.clipped_grad_sum(pb.kind, pb.params, pb.data, theta, np.inf, fast) == 0
    assert dp_mcmc.clipped_grad_sum(pb.kind, pb.params, pb.data, theta, 1e300, slow) == 0
    np.testing.assert_allclose(fast, slow, rtol=1e-12)


def test_rwmh_and_hmc_without_noise_are_exact_when_nothing_is_clipped():
    pb = small_banana()
    mean, sd = exact_moments()
    rw = run_dp_penalty(
        pb,
        pb.theta_true,
        300_000,
        tau=0.0,
        prop_sd=sd,
        clip_bound=1e6,
        rng=np.random.default_rng(8),
    )
    hmc = run_dp_hmc(
        pb,
        pb.theta_true,
        100_000,
        tau_l=0.0,
        tau_g=0.0,
        steps=3,
        step_size=0.25,
        mass=1.0,
        clip_llr=1e6,
        clip_grad=np.inf,
        rng=np.random.default_rng(9),
    )
    for chain in (rw, hmc):
        assert chain.info.clipped["llr"] == 0 and chain.info.detail.decisions_changed == 0
        check_exact(ExactCase(chain.kept, mean, sd))


@pytest.mark.parametrize("rule", ["euclidean", "sum_of_differences"])
def test_clipping_changes_decisions_and_the_rule_changes_the_clipping(rule):
    pb = dp_mcmc.make_problem(
        "t", dict(family="banana", dim=2, n=5000, a=20.0), np.random.default_rng(6)
    )
    runs = {
        b: run_dp_penalty(
            pb,
            pb.theta_true,
            2000,
            tau=0.0,
            prop_sd=0.01,
            clip_bound=b,
            rng=np.random.default_rng(1),
            clip_rule=rule,
        )
        for b in (0.05, 1000.0)
    }
    assert (
        runs[0.05].info.detail.llr_clip_fraction > 0.3
        and runs[0.05].info.detail.decisions_changed > 0
    )
    assert runs[1000.0].info.clipped["llr"] == 0 or rule == "sum_of_differences"
    if rule == "sum_of_differences":  # the author's threshold is near 0 when the differences cancel
        assert runs[1000.0].info.clipped["llr"] > 0
