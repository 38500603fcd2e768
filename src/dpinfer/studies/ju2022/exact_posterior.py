"""The regression's private posterior without MCMC: importance sampling from the prior predictive.

Given a release s_dp of the statistics of N clamped records, p(beta | s_dp) is proportional to
E[Laplace(s_dp - s(X, y)) | beta] p(beta): draw beta from its N(0, tau^2 I) prior, the covariates
and responses from the model (ju2022 Sec. 5, supplement S-5), compute their released statistics
(:func:`dpinfer.models.gaussian_linreg.released_statistic`) and weight each draw by the Laplace
density of the release given them. The weighted draws are exact as their number grows, with no
chain to mix. They work where the release says little (small epsilon): there the weights are
even; as epsilon grows a few draws carry the weight, and the effective sample size says when
that happens.

:func:`interval_check` sets the central credible interval of the converged companion's pooled
chains (:func:`dpinfer.studies.ju2022.run.run_converged_chunk`) beside the one from the weighted
draws, each endpoint with its Monte Carlo error (:func:`quantile_se`): the chains' from the ESS of
the indicator of the endpoint over the chains, the weights' from the same indicator's importance
variance. ``python -m dpinfer.studies.ju2022.exact_posterior`` prints the check on the study's
own releases.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ...diagnostics import effective_sample_size
from ...mechanisms import ClampRescale
from ...models import gaussian_linreg
from ...proportions import format_proportion
from .run import linreg_problem, run_chains, stream_key

__all__ = [
    "batch_statistics",
    "prior_predictive",
    "importance_weights",
    "quantile_se",
    "interval_check",
    "companion_chains",
    "release_of",
    "exact_coverage",
    "main",
]


def batch_statistics(x0, y, clamp: tuple) -> np.ndarray:
    """(m, d) noise-free statistics of m data sets (covariates ``x0`` (m, N, p) without the
    intercept, responses ``y`` (m, N)): :func:`~dpinfer.models.gaussian_linreg.released_statistic`
    of each, vectorised."""
    c = ClampRescale(*clamp)
    m, n, p = x0.shape
    xt = np.concatenate([np.ones((m, n, 1)), c.apply(x0)], axis=2)
    yt = c.apply(y)
    xx = np.transpose(xt, (0, 2, 1)) @ xt
    upper = [(j, k) for j in range(p + 1) for k in range(j, p + 1) if (j, k) != (0, 0)]
    cols = [np.einsum("mnj,mn->mj", xt, yt), (yt * yt).sum(axis=1)[:, None]]
    cols.append(np.stack([xx[:, j, k] for j, k in upper], axis=1))
    return np.concatenate(cols, axis=1)


def prior_predictive(
    problem: gaussian_linreg.Problem, draws: int, rng: np.random.Generator, batch: int = 4000
) -> tuple[np.ndarray, np.ndarray]:
    """(beta (draws, p+1), statistics (draws, d)): beta from the prior and a data set of
    ``problem.n_records`` records from the model per draw, with the d noise-free statistics of
    its clamped, rescaled records (:func:`batch_statistics`), ``batch`` data sets at a time."""
    mean_x = np.asarray(problem.mean_x, float)
    chol = np.linalg.cholesky(np.asarray(problem.cov_x, float))
    p, n, sd = mean_x.size, int(problem.n_records), math.sqrt(problem.sigma2)
    betas, stats = [], []
    for start in range(0, int(draws), batch):
        m = min(batch, int(draws) - start)
        beta = rng.normal(0.0, problem.tau, (m, p + 1))
        x0 = mean_x + rng.standard_normal((m, n, p)) @ chol.T
        y = (
            beta[:, :1]
            + np.einsum("mnp,mp->mn", x0, beta[:, 1:])
            + sd * rng.standard_normal((m, n))
        )
        betas.append(beta)
        stats.append(batch_statistics(x0, y, problem.clamp))
    return np.concatenate(betas), np.concatenate(stats)


def importance_weights(released, statistics, scale: float) -> tuple[np.ndarray, float]:
    """(normalised weights, Kish effective sample size): each prior-predictive draw weighted by
    the Laplace(``scale``) density of ``released`` given its ``statistics``."""
    logw = -np.abs(np.asarray(released, float) - statistics).sum(axis=1) / float(scale)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    return w, float(1.0 / np.sum(w * w))


def _weighted_cdf(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``x`` sorted, its cumulative weights ``w``)."""
    order = np.argsort(x)
    return x[order], np.cumsum(w[order])


def _weighted_quantile(xs: np.ndarray, cum: np.ndarray, q: float) -> float:
    """Inverse of the weighted empirical CDF (``xs`` sorted, ``cum`` its cumulative weights)."""
    i = int(np.searchsorted(cum, min(max(q, 0.0), 1.0), side="left"))
    return float(xs[min(i, xs.size - 1)])


def quantile_se(xs: np.ndarray, cum: np.ndarray, q: float, ess: float) -> float:
    """Monte Carlo error of the q-quantile of a sample (``xs`` sorted, ``cum`` its cumulative
    weights) whose indicator I(x <= Q(q)) has effective sample size ``ess``: the CDF at the
    quantile is known to sqrt(q (1 - q) / ess), mapped to x through the sample's quantile
    function, half the width of Q(q +- that)."""
    d = math.sqrt(q * (1.0 - q) / ess)
    return 0.5 * (_weighted_quantile(xs, cum, q + d) - _weighted_quantile(xs, cum, q - d))


def _chain_endpoint(chains: np.ndarray, q: float) -> tuple[float, float, float]:
    """(endpoint, its MC error, ESS of its indicator) of (n_chains, n_draws) draws of one
    parameter: numpy's quantile of the pooled draws, as the study's intervals; the indicator's
    ESS summed over the independent chains."""
    pooled = np.sort(chains.ravel())
    endpoint = float(np.quantile(pooled, q))
    ess = sum(
        float(effective_sample_size((c <= endpoint)[:, None].astype(float))[0]) for c in chains
    )
    cum = np.arange(1, pooled.size + 1) / pooled.size
    return endpoint, quantile_se(pooled, cum, q, ess), ess


def _weighted_endpoint(x: np.ndarray, w: np.ndarray, q: float) -> tuple[float, float, float]:
    """(endpoint, its MC error, ESS of its indicator) of weighted draws of one parameter; the
    indicator's ESS is q (1 - q) over its self-normalised importance variance."""
    xs, cum = _weighted_cdf(x, w)
    endpoint = _weighted_quantile(xs, cum, q)
    var = float(np.sum(w * w * ((x <= endpoint) - q) ** 2))
    ess = q * (1.0 - q) / var
    return endpoint, quantile_se(xs, cum, q, ess), ess


def interval_check(chains, beta, weights, level: float) -> list[dict]:
    """The central ``level`` interval of each parameter from ``chains`` (n_chains, n_draws, D)
    beside the one from importance draws ``beta`` (M, D) with ``weights``: one row per
    (parameter, endpoint) with both values, their Monte Carlo errors, the indicators' ESS and
    z, the difference over the errors combined."""
    chains, beta = np.asarray(chains, float), np.asarray(beta, float)
    rows = []
    for j in range(beta.shape[1]):
        for name, q in (("lower", (1 - level) / 2), ("upper", (1 + level) / 2)):
            mc, mc_se, mc_ess = _chain_endpoint(chains[:, :, j], q)
            im, im_se, im_ess = _weighted_endpoint(beta[:, j], weights, q)
            rows.append(
                dict(
                    parameter=f"beta_{j}",
                    endpoint=name,
                    chains=mc,
                    chains_se=mc_se,
                    chains_ess=mc_ess,
                    importance=im,
                    importance_se=im_se,
                    importance_ess=im_ess,
                    z=(mc - im) / math.hypot(mc_se, im_se),
                )
            )
    return rows


# ----------------------------------------------------------------------------- the study's releases
def companion_chains(config: dict, epsilon: float, rep: int):
    """(problem, chains (n_chains, keep, p+1)): replicate ``rep`` of experiment
    ``linreg_coverage`` at ``epsilon`` as the study runs it (``config``: a full config, e.g. the
    paper-scale one): its release (:func:`release_of`), and the converged companion's chains on
    it, from the companion's own streams and settings (``ju2022.converged``)."""
    ju = config["ju2022"]
    problem, _ = release_of(config, epsilon, rep)
    comp = ju["converged"]
    chains = run_chains(
        "linreg",
        ju["linreg"]["sampler"],
        problem,
        comp["chains"],
        config["seed"],
        stream_key("linreg_coverage", epsilon),
        rep,
        burnin=comp["burnin"],
        keep=comp["keep"],
        noncentred_moves=comp["linreg"]["noncentred_moves"],
    )
    return problem, np.stack([c.kept for c in chains])


def release_of(config: dict, epsilon: float, rep: int) -> tuple:
    """(problem (release, noise scale, model), true beta) of replicate ``rep`` of
    ``linreg_coverage`` at ``epsilon``, as the study draws it."""
    ju = config["ju2022"]
    parameters = gaussian_linreg.reference_files(ju["data_dir"])[0]
    return linreg_problem(
        SimpleNamespace(parameters=str(parameters)),
        ju["linreg"],
        "fixed_parameters",
        ju["experiments"]["linreg_coverage"]["n_records"],
        epsilon,
        rep,
        stream_key("linreg_coverage", epsilon),
        config["seed"],
    )


def exact_coverage(config: dict, epsilon: float, replicates: int, draws: int) -> tuple:
    """(hits (replicates, p+1), smallest Kish ESS): whether the exact central interval (at the
    config's credible level, from importance weights) of each of the first ``replicates``
    releases of ``linreg_coverage`` at ``epsilon`` covers the true beta. One set of
    prior-predictive draws serves every release (it does not depend on the release)."""
    level = config["ju2022"]["credible_level"]
    problem, truth = release_of(config, epsilon, 0)
    beta, stats = prior_predictive(problem, draws, np.random.default_rng([46, replicates]))
    hits, smallest = [], float("inf")
    for rep in range(replicates):
        problem, truth = release_of(config, epsilon, rep)
        w, kish = importance_weights(problem.released, stats, problem.scale)
        smallest = min(smallest, kish)
        row = []
        for j in range(beta.shape[1]):
            xs, cum = _weighted_cdf(beta[:, j], w)
            lo = _weighted_quantile(xs, cum, (1 - level) / 2)
            hi = _weighted_quantile(xs, cum, (1 + level) / 2)
            row.append(lo <= truth[j] <= hi)
        hits.append(row)
    return np.asarray(hits), smallest


def main(argv=None) -> None:
    """Print the check for some replicates of ``linreg_coverage`` at a config (the paper-scale
    one by default)."""
    import yaml

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.3])
    ap.add_argument("--replicates", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--draws", type=int, default=60_000, help="prior-predictive draws")
    ap.add_argument("--scale-factor", type=float, default=1.0, help="weights at a wrong scale")
    ap.add_argument(
        "--coverage",
        type=int,
        metavar="R",
        help="instead: the exact intervals' coverage of the true beta over the first R releases",
    )
    args = ap.parse_args(argv)
    config = yaml.safe_load(Path(args.config).read_text(encoding="utf-8"))
    level = config["ju2022"]["credible_level"]
    if args.coverage:
        for eps in args.epsilons:
            hits, kish = exact_coverage(config, eps, args.coverage, args.draws)
            shares = ", ".join(
                f"beta_{j} {format_proportion(int(hits[:, j].sum()), len(hits))}"
                for j in range(hits.shape[1])
            )
            print(f"epsilon {eps:g}: exact {level:.0%} intervals cover {shares}")
            print(f"  smallest Kish ESS of the weights: {kish:.0f} of {args.draws}")
        return
    print("epsilon rep parameter endpoint: chains (MC error, ESS) importance (MC error, ESS) z")
    for eps in args.epsilons:
        for rep in args.replicates:
            problem, chains = companion_chains(config, eps, rep)
            beta, stats = prior_predictive(problem, args.draws, np.random.default_rng([rep, 46]))
            w, kish = importance_weights(problem.released, stats, problem.scale * args.scale_factor)
            for r in interval_check(chains, beta, w, level):
                print(
                    f"{eps:g} {rep} {r['parameter']} {r['endpoint']}: {r['chains']:.3f} "
                    f"({r['chains_se']:.3f}, {r['chains_ess']:.0f}) {r['importance']:.3f} "
                    f"({r['importance_se']:.3f}, {r['importance_ess']:.0f}) {r['z']:+.2f}"
                )
            print(f"  Kish ESS of the weights: {kish:.0f} of {args.draws}")


if __name__ == "__main__":
    main()
