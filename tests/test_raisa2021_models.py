"""raisa2021 models (dpinfer.models.dp_mcmc): the numba kernels against per-row numpy formulas,
the exact posterior draws against closed-form moments and against log_posterior."""

from __future__ import annotations

import numpy as np
import pytest

from dpinfer.models import dp_mcmc as M

SPECS = {
    "banana": dict(
        family="banana",
        dim=2,
        n=3000,
        a=20.0,
        temperature=1.0,
        prior_variance=1000,
        theta_true=[0, 3],
    ),
    "tempered-10d": dict(
        family="banana",
        dim=10,
        n=2000,
        a=20.0,
        temperature=0.05,
        prior_variance=1000,
        theta_true=[0, 3] + [0] * 8,
    ),
    "gauss-30d": dict(
        family="banana",
        dim=30,
        n=1000,
        a=0.0,
        temperature=1.0,
        prior_variance=1000,
        theta_true=[0, 3] + [0] * 28,
    ),
    "gauss": dict(
        family="gauss",
        dim=2,
        n=2000,
        temperature=1.0,
        likelihood_cov=[[1, 0.999], [0.999, 1]],
        prior_variance_table_and_reference=100,
        theta_true=[0, 3],
    ),
    "circle": dict(family="circle", dim=2, n=2000, a=1e-5, temperature=1.0),
    "tempered-circle": dict(family="circle", dim=2, n=2000, a=1e-3, temperature=0.3),
}


def spec_problem(key, seed=11):
    return M.make_problem(key, SPECS[key], np.random.default_rng(seed))


def loglik_rows(pb, theta):
    """(n,) per-row log-likelihood (constants dropped) and (n, d) per-row gradients, plain numpy."""
    x, p, d = pb.data.astype(np.float64), pb.params, pb.dim  # the data set: float32 values, exactly
    if pb.kind == 2:
        s = theta @ theta
        return -p[0] * (s - x[0]) ** 2, (-4 * p[0] * (s - x[0]))[:, None] * theta[None, :]
    if pb.kind == 0:
        a, tau = p[0], p[2 : 2 + d]
        m = theta.copy()
        m[1] += a * theta[0] ** 2
        e = x.T - m
        grad = tau * e
        grad[:, 0] += 2 * a * theta[0] * tau[1] * e[:, 1]
        return -0.5 * (tau * e * e).sum(axis=1), grad
    prec = p[1 : 1 + d * d].reshape(d, d)
    e = x.T - theta
    return -0.5 * np.einsum("ji,ik,jk->j", e, prec, e), e @ prec


def random_pair(pb, rng, scale):
    theta = pb.start_centre + scale * rng.standard_normal(pb.dim)
    return theta, theta + scale * rng.standard_normal(pb.dim)


@pytest.mark.parametrize("key", list(SPECS))
@pytest.mark.parametrize("bound", [0.3, 2.0])
def test_clipped_llr_sum_matches_per_row_formula(key, bound):
    pb = spec_problem(key)
    rng = np.random.default_rng(5)
    scale = 0.3 if pb.kind == 2 else 0.01
    for _ in range(3):
        theta, theta_new = random_pair(pb, rng, scale)
        r = loglik_rows(pb, theta_new)[0] - loglik_rows(pb, theta)[0]
        thr = bound * np.linalg.norm(theta_new - theta)
        total, count = M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, theta_new, bound)
        assert count == np.sum(np.abs(r) > thr)
        assert total == pytest.approx(
            np.clip(r, -thr, thr).sum(), rel=1e-9, abs=1e-9 * np.abs(r).sum()
        )


@pytest.mark.parametrize("key", list(SPECS))
def test_one_coordinate_move_reads_one_column_and_agrees(key):
    pb = spec_problem(key)
    rng = np.random.default_rng(6)
    theta = pb.start_centre + 0.01 * rng.standard_normal(pb.dim)
    theta_new = theta.copy()
    theta_new[-1] += 0.02
    r = loglik_rows(pb, theta_new)[0] - loglik_rows(pb, theta)[0]
    thr = 1.0 * 0.02
    total, count = M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, theta_new, 1.0)
    assert count == np.sum(np.abs(r) > thr)
    assert total == pytest.approx(np.clip(r, -thr, thr).sum(), rel=1e-9, abs=1e-9 * np.abs(r).sum())


@pytest.mark.parametrize("key", list(SPECS))
@pytest.mark.parametrize("quantile", [0.1, 0.5, 0.9])
def test_clipped_grad_sum_matches_per_row_formula(key, quantile):
    pb = spec_problem(key)
    rng = np.random.default_rng(7)
    theta = pb.start_centre + (0.3 if pb.kind == 2 else 0.01) * rng.standard_normal(pb.dim)
    g = loglik_rows(pb, theta)[1]
    norms = np.linalg.norm(g, axis=1)
    bound = float(np.quantile(norms, quantile))
    expect = (g * np.minimum(1.0, bound / norms)[:, None]).sum(axis=0)
    out = np.empty(pb.dim)
    count = M.clipped_grad_sum(pb.kind, pb.params, pb.data, theta, bound, out)
    assert count == np.sum(norms > bound)
    np.testing.assert_allclose(out, expect, rtol=1e-9, atol=1e-9 * np.abs(g).sum())


EXACT_SPECS = {  # n not a multiple of the block lengths, so the last, partial block is used
    "banana-2d": dict(SPECS["banana"], n=5003),
    "banana-10d": dict(SPECS["tempered-10d"], n=5003),
    "gauss-30d": dict(SPECS["gauss-30d"], n=5003),
    "gauss-2d": dict(SPECS["gauss"], n=5003),
    "gauss-3d": dict(
        family="gauss",
        dim=3,
        n=5003,
        likelihood_cov=[[1, 0.5, 0.2], [0.5, 1, 0.3], [0.2, 0.3, 1]],
        theta_true=[0, 3, 1],
    ),
    "circle": dict(SPECS["circle"], n=5003),
}


@pytest.mark.parametrize("key", list(EXACT_SPECS))
@pytest.mark.parametrize("quantile", [0.02, 0.3, 0.7, 0.98])
def test_optimised_passes_equal_the_plain_per_row_sums(key, quantile):
    """The fused/blocked kernels against plain numpy per-row clipping on the float32 data set:
    counts equal, sums to 1e-12 relative to the sum of |per-row terms| (a mix of clipped and
    unclipped rows, the clipping fraction set by the quantile)."""
    pb = M.make_problem(key, EXACT_SPECS[key], np.random.default_rng(21))
    assert pb.data.dtype == np.float32
    rng = np.random.default_rng(22)
    scale = 0.3 if pb.kind == 2 else 0.05
    for _ in range(2):
        theta, theta_new = random_pair(pb, rng, scale)
        _, g = loglik_rows(pb, theta)
        norms = np.sqrt((g * g).sum(axis=1))
        bound = float(np.quantile(norms, quantile)) * (1 + 1e-9)  # no row exactly on the bound
        out = np.empty(pb.dim)
        count = M.clipped_grad_sum(pb.kind, pb.params, pb.data, theta, bound, out)
        clipped = g * np.minimum(1.0, bound / norms)[:, None]
        assert count == np.sum(norms > bound) and 0 < count < pb.n
        np.testing.assert_allclose(
            out, clipped.sum(axis=0), rtol=1e-12, atol=1e-12 * np.abs(g).sum()
        )
        for new in (theta_new, theta + np.eye(pb.dim)[-1] * scale):
            r = loglik_rows(pb, new)[0] - loglik_rows(pb, theta)[0]
            dist = np.linalg.norm(new - theta)
            b = float(np.quantile(np.abs(r), quantile)) / dist * (1 + 1e-9)
            total, cnt = M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, new, b)
            assert cnt == np.sum(np.abs(r) > b * dist) and 0 < cnt < pb.n
            assert total == pytest.approx(
                np.clip(r, -b * dist, b * dist).sum(), rel=1e-12, abs=1e-12 * np.abs(r).sum()
            )


@pytest.mark.parametrize("key", list(SPECS))
def test_clip_counts_are_zero_with_a_huge_bound_and_n_with_a_zero_bound(key):
    pb = spec_problem(key)
    theta, theta_new = random_pair(pb, np.random.default_rng(8), 0.3 if pb.kind == 2 else 0.01)
    out = np.empty(pb.dim)
    r = loglik_rows(pb, theta_new)[0] - loglik_rows(pb, theta)[0]
    assert M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, theta_new, 1e12)[1] == 0
    assert M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, theta_new, 1e12)[
        0
    ] == pytest.approx(r.sum(), rel=1e-9, abs=1e-9 * np.abs(r).sum())
    total, count = M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, theta_new, 0.0)
    assert count == pb.n and abs(total) <= 1e-9 * np.abs(r).sum()
    assert M.clipped_grad_sum(pb.kind, pb.params, pb.data, theta, 1e12, out) == 0
    np.testing.assert_allclose(
        out,
        loglik_rows(pb, theta)[1].sum(axis=0),
        rtol=1e-9,
        atol=1e-9 * np.abs(loglik_rows(pb, theta)[1]).sum(),
    )
    assert M.clipped_grad_sum(pb.kind, pb.params, pb.data, theta, 0.0, out) == pb.n
    assert np.all(np.abs(out) <= 1e-9 * np.abs(loglik_rows(pb, theta)[1]).sum())


@pytest.mark.parametrize("key", list(SPECS))
def test_log_posterior_differences_are_tempered_ratio_sums_plus_prior(key):
    pb = spec_problem(key)
    rng = np.random.default_rng(9)
    for _ in range(3):
        theta, theta_new = random_pair(pb, rng, 0.3 if pb.kind == 2 else 0.01)
        llr = M.clipped_llr_sum(pb.kind, pb.params, pb.data, theta, theta_new, 1e12)[0]
        prior = M.log_prior(pb.kind, pb.params, theta_new) - M.log_prior(pb.kind, pb.params, theta)
        lp = M.log_posterior(pb, np.stack([theta, theta_new]))
        assert lp[1] - lp[0] == pytest.approx(pb.temperature * llr + prior, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("key", list(SPECS))
def test_grad_log_prior_is_the_derivative_of_log_prior(key):
    pb = spec_problem(key)
    theta = pb.start_centre + np.random.default_rng(10).standard_normal(pb.dim)
    out = np.empty(pb.dim)
    M.grad_log_prior(pb.kind, pb.params, theta, out)
    h = 1e-6
    num = [
        (
            M.log_prior(pb.kind, pb.params, theta + h * e)
            - M.log_prior(pb.kind, pb.params, theta - h * e)
        )
        / (2 * h)
        for e in np.eye(pb.dim)
    ]
    np.testing.assert_allclose(out, num, rtol=1e-6, atol=1e-9)
    if pb.kind == 2:
        assert M.log_prior(pb.kind, pb.params, theta) == 0.0 and np.all(out == 0.0)


def _banana_moments(pb):
    """Closed-form mean and sd of the tempered banana posterior (Theorem 12)."""
    d, p, tn = pb.dim, pb.params, pb.temperature * pb.n
    tau = p[2 : 2 + d]
    prec = tn * tau + p[1]
    mu = tn * tau * pb.data.mean(axis=1, dtype=np.float64) / prec
    s2 = 1.0 / prec
    a = p[0]
    mean, var = mu.copy(), s2.copy()
    mean[1] = mu[1] - a * (mu[0] ** 2 + s2[0])
    var[1] = s2[1] + a * a * (2 * s2[0] ** 2 + 4 * mu[0] ** 2 * s2[0])
    return mean, np.sqrt(var), mu, np.sqrt(s2)


@pytest.mark.parametrize("key", ["banana", "tempered-10d", "gauss-30d"])
def test_theorem_12_draws_have_the_closed_form_moments(key):
    pb = spec_problem(key)
    m = 200_000
    draws = M.exact_posterior_draws(pb, m, np.random.default_rng(12))
    mean, sd, _, _ = _banana_moments(pb)
    assert draws.shape == (m, pb.dim)
    z_mean = np.abs(draws.mean(axis=0) - mean) / (sd / np.sqrt(m))
    # se of the sd from the sample kurtosis of each coordinate
    c = draws - draws.mean(axis=0)
    se_var = (c**2).std(axis=0) / np.sqrt(m)
    z_sd = np.abs(c.std(axis=0) - sd) / (se_var / (2 * sd))
    assert np.all(z_mean < 5) and np.all(z_sd < 5), (z_mean, z_sd)


def test_gauss_draws_match_the_closed_form_posterior():
    pb = spec_problem("gauss")
    cov_lik = np.array(SPECS["gauss"]["likelihood_cov"], float)
    prior_cov = 100 * np.eye(2)  # Table 5.1 variance, not the author's sd 100
    gain = prior_cov @ np.linalg.inv(prior_cov + cov_lik / pb.n)
    mean, cov = gain @ pb.data.mean(axis=1, dtype=np.float64), gain @ cov_lik / pb.n
    m = 200_000
    draws = M.exact_posterior_draws(pb, m, np.random.default_rng(13))
    sd = np.sqrt(np.diag(cov))
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * sd / np.sqrt(m))
    emp = np.cov(draws.T)
    assert np.all(np.abs(np.sqrt(np.diag(emp)) - sd) < 5 * sd / np.sqrt(2 * m))
    corr = emp[0, 1] / np.sqrt(emp[0, 0] * emp[1, 1])
    assert corr == pytest.approx(
        cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]), abs=5 * (1 - 0.999**2) / np.sqrt(m)
    )


@pytest.mark.parametrize("key", ["banana", "tempered-10d", "gauss-30d", "gauss"])
def test_log_posterior_is_the_log_density_of_the_exact_posterior(key):
    pb = spec_problem(key)
    thetas = M.exact_posterior_draws(pb, 5, np.random.default_rng(14))
    lp = M.log_posterior(pb, thetas)
    if pb.kind == 0:
        _, _, mu, s = _banana_moments(pb)
        v = thetas.copy()
        v[:, 1] += pb.params[0] * thetas[:, 0] ** 2  # (theta_1, u, ...): Jacobian 1
        exact = (-0.5 * ((v - mu) / s) ** 2).sum(axis=1)
    else:
        d = pb.dim
        prec = pb.params[0] * np.eye(d) + pb.n * pb.temperature * pb.params[1 : 1 + d * d].reshape(
            d, d
        )
        mu = np.linalg.solve(
            prec,
            pb.n
            * pb.temperature
            * pb.params[1 : 1 + d * d].reshape(d, d)
            @ pb.data.mean(1, dtype=np.float64),
        )
        e = thetas - mu
        exact = -0.5 * np.einsum("ki,ij,kj->k", e, prec, e)
    np.testing.assert_allclose(lp - lp[0], exact - exact[0], rtol=1e-6, atol=1e-6)


def test_circle_has_no_exact_sampler_and_its_layout():
    pb = spec_problem("circle")
    with pytest.raises(ValueError):
        M.exact_posterior_draws(pb, 10, np.random.default_rng(0))
    assert pb.data.shape == (1, pb.n) and np.all(np.diff(pb.data[0]) >= 0)
    np.testing.assert_array_equal(pb.theta_true, [0, 0])
    np.testing.assert_array_equal(pb.start_centre, [0, 1])
    assert (pb.n, pb.dim, pb.family, pb.kind) == (2000, 2, "circle", 2)


def test_banana_data_columns_and_make_problem_validation():
    pb = M.make_problem("big", dict(SPECS["banana"], n=200_000), np.random.default_rng(1))
    x = pb.data
    assert x.shape == (2, 200_000) and x.flags.c_contiguous
    assert np.all(np.abs(x.mean(axis=1) - [0, 3]) < 5 * np.sqrt(np.array([20, 2.5]) / 200_000))
    np.testing.assert_allclose(x.var(axis=1), [20, 2.5], rtol=0.02)
    with pytest.raises(ValueError):
        M.make_problem("bad", dict(SPECS["banana"], family="nope"), np.random.default_rng(1))
    with pytest.raises(ValueError):
        M.make_problem("bad", dict(SPECS["banana"], dim=3), np.random.default_rng(1))
