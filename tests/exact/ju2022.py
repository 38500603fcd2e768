"""Exact targets of the ju2022 samplers (Algorithm 1).

- ``("loglinear", "record_wise")``: a tiny log-linear problem (K = J = I = 2,
  N = 3) whose private posterior E[p | s_dp] and sd(p | s_dp) are computed by enumerating every
  confidential data set: Laplace noise at two scales, Gaussian noise, and discrete Gaussian noise
  on integer tables (the sampler runs the Gaussian kernel without the discrete law's normaliser,
  :func:`dpinfer.releases.tables.noise_law`; the enumeration uses the discrete mass itself).
- ``("linreg", "record_wise")``: one record, nothing clamped and a vanishing noise
  scale, so beta | s_dp is the conjugate posterior given the record (supplement S-5), up to an
  O(noise) slack.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln

from dpinfer.mechanisms import DiscreteGaussian, Gaussian, Laplace
from dpinfer.models import gaussian_linreg, naive_bayes
from dpinfer.releases.tables import noise_law
from dpinfer.samplers.data_augmentation import run_linreg, run_loglinear
from tests.harness import ExactCase

# ----------------------------------------------------------------------------- log-linear
K, J, I, N = 2, 2, 2, 3
ALPHA_P = np.array([1.5, 2.5])
ALPHA = np.full((K, J, I), 2.0)
ALPHA[0, 0, 1] = 1.0  # asymmetric prior: catches index mix-ups
# noisy tables that no confidential data set matches exactly
RELEASED = np.array([[[2.3, -0.4], [0.2, 1.1]], [[0.7, 0.9], [1.6, -0.2]]])
SCALES = (0.5, 2.0)
# integer tables for the discrete Gaussian case (a discrete release holds whole numbers)
RELEASED_INT = np.array([[[2.0, -1.0], [0.0, 1.0]], [[1.0, 1.0], [2.0, 0.0]]])
# (mechanism, released, seed) of every log-linear case
LOGLINEAR = [(Laplace(scale=s), RELEASED, seed) for s, seed in zip(SCALES, (11, 13))]
LOGLINEAR += [
    (Gaussian(sigma=0.6, sensitivity=1.0), RELEASED, 17),
    (DiscreteGaussian(sigma=0.7, sensitivity=1.0), RELEASED_INT, 19),
]


def _log_dirmult_sequence(counts, alpha):
    """log P(one particular sequence with these counts) under a Dirichlet-categorical model."""
    counts, alpha = np.asarray(counts, float), np.asarray(alpha, float)
    return (
        gammaln(alpha.sum())
        - gammaln(alpha.sum() + counts.sum())
        + np.sum(gammaln(alpha + counts) - gammaln(alpha))
    )


def exact_private_posterior(released, noise, alpha_p, alpha, n_records):
    """(mean, sd) of p | s_dp by enumerating every data set of n_records records.

    p(x | s_dp) is proportional to prod_cells f(m - n(x)), f the noise law of ``noise`` (a
    mechanism's ``logpdf``, or a number: the Laplace scale), times the Dirichlet-multinomial
    marginal of the sequence x; given x, p ~ Dirichlet(n_class(x) + alpha_p).
    """
    mechanism = Laplace(scale=noise) if np.isscalar(noise) else noise
    k_, j_, i_ = released.shape
    values = list(itertools.product(range(i_), *[range(j_)] * k_))  # a record: (class, answer_1..K)
    logw, m1, m2 = [], [], []
    a0 = n_records + alpha_p.sum()
    for data in itertools.product(values, repeat=n_records):
        t = np.zeros((k_, j_, i_))
        for rec in data:
            for k in range(k_):
                t[k, rec[1 + k], rec[0]] += 1
        ncls = t[0].sum(axis=0)
        lw = mechanism.logpdf(released - t).sum() + _log_dirmult_sequence(ncls, alpha_p)
        for k in range(k_):
            for i in range(i_):
                lw += _log_dirmult_sequence(t[k, :, i], alpha[k, :, i])
        a = ncls + alpha_p
        logw.append(lw)
        m1.append(a / a0)
        m2.append(a * (a + 1) / (a0 * (a0 + 1)))
    w = np.exp(np.asarray(logw) - max(logw))
    w /= w.sum()
    mean = w @ np.asarray(m1)
    return mean, np.sqrt(w @ np.asarray(m2) - mean**2)


def loglinear_chain(noise, seed: int, released=RELEASED):
    """A long chain of Algorithm 1 on the tiny problem ``released``, told the noise law of
    ``noise`` (a mechanism, or a number: the Laplace scale)."""
    mechanism = Laplace(scale=noise) if np.isscalar(noise) else noise
    noise, scale = noise_law(mechanism, released, "the exact case")
    return run_loglinear(
        naive_bayes.Problem(released, scale, ALPHA_P, ALPHA, N, noise),
        burnin=2_000,
        keep=118_000,
        rng=np.random.default_rng(seed),
    )


def loglinear_cases() -> list[ExactCase]:
    cases = []
    for mechanism, released, seed in LOGLINEAR:
        mean, sd = exact_private_posterior(released, mechanism, ALPHA_P, ALPHA, N)
        cases.append(ExactCase(loglinear_chain(mechanism, seed, released).kept, mean, sd))
    return cases


# ----------------------------------------------------------------------------- regression
def linreg_vanishing_noise():
    """(chain, exact mean, exact covariance): n = 1, nothing clamped, noise scale 0.002 in
    rescaled units (0.1 in the data's units), so the latent record is pinned by the release."""
    rng = np.random.default_rng(5)
    mean_x, cov_x, sigma2, tau = np.array([0.3]), np.eye(1), 0.5, 2.0
    X, y = np.array([[1.0, 0.8]]), np.array([-0.2])
    clamp = (-50.0, 50.0)
    released = Laplace(scale=0.002).release(rng, gaussian_linreg.released_statistic(X, y, clamp))
    chain = run_linreg(
        gaussian_linreg.Problem(
            released,
            scale=0.002,
            mean_x=mean_x,
            cov_x=cov_x,
            sigma2=sigma2,
            tau=tau,
            clamp=clamp,
            n_records=1,
        ),
        burnin=5_000,
        keep=55_000,
        rng=rng,
    )
    mu, cov = gaussian_linreg.conjugate_posterior(X, y, sigma2, tau)
    return chain, mu, cov


def linreg_case() -> ExactCase:
    chain, mu, cov = linreg_vanishing_noise()
    sd = np.sqrt(np.diag(cov))
    return ExactCase(chain.kept, mu, sd, mean_slack=0.05, sd_slack=0.05 * sd + 0.01)


CASES = {
    ("loglinear", "record_wise"): loglinear_cases,
    ("linreg", "record_wise"): linreg_case,
}
