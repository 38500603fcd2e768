"""The ju2022 authors' two published releases as worked examples of dpinfer.releases.tables and
dpinfer.releases.regression: the same chains as the ju2022 study's on the same release, agreement
within Monte Carlo error on independent streams, the diagnostics, and an exact posterior."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from dpinfer import diagnostics
from dpinfer.io import read_json
from dpinfer.mechanisms import DiscreteGaussian, DoubleGeometric, Laplace, calibrate
from dpinfer.methods import stream_stage
from dpinfer.models import gaussian_linreg, naive_bayes
from dpinfer.releases import formats, regression, tables
from dpinfer.seeding import rng_for
from dpinfer.studies.ju2022.run import run_chains, stream_key
from tests.conftest import DATA_JU2022, ROOT
from tests.exact import ju2022 as exact
from tests.harness import z_scores

SEED = 2022
TABLES_FILE = DATA_JU2022 / "derived_loglinear_privatized_tables_iexp1.json"
REGRESSION_FILE = DATA_JU2022 / "linearregression_sdpfixxy_N100p2noiselevel1iexp1.json"
JU = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))["ju2022"]
CHAINS = JU["converged"]["chains"]
BURNIN = JU["converged"]["burnin"]


def _study_streams(experiment: str, epsilon: float):
    """The ju2022 study's chain streams (replicate 0 of ``experiment`` at ``epsilon``)."""
    key, method = stream_key(experiment, epsilon), JU["loglinear"]["sampler"]
    return lambda: [
        rng_for(SEED, "ju2022", key, 0, stream_stage(method, c, "ju2022")) for c in range(CHAINS)
    ]


def _mcse(chains: np.ndarray) -> np.ndarray:
    """MC standard error of the posterior mean of (chains, draws, params) from the bulk ESS."""
    flat = chains.reshape(-1, chains.shape[2])
    return flat.std(axis=0, ddof=1) / np.sqrt(diagnostics.bulk_ess(chains))


# ----------------------------------------------------------------------------- log-linear
def _study_loglinear(table: np.ndarray, epsilon: float) -> naive_bayes.Problem:
    """The study's problem for a release: its mechanism, prior and N from config and files."""
    cfg = JU["loglinear"]
    parameters, _ = naive_bayes.reference_files(DATA_JU2022)
    ref = naive_bayes.load_reference(parameters, None, cfg["prior_concentration"])
    n_records = int(read_json(parameters)["objects"]["N"]["values"])
    mech = calibrate(cfg["mechanism"], epsilon, cfg["sensitivity"])
    return naive_bayes.Problem(table, mech.scale, ref.alpha_p, ref.alpha, n_records)


def _loglinear(key: str, **kw):
    epsilon, table = formats.tables_from_ju2022(read_json(TABLES_FILE), TABLES_FILE.name)[key]
    study = _study_loglinear(table, epsilon)
    mech = Laplace.calibrated(epsilon, naive_bayes.sensitivity_l1(table.shape[0]))
    post = tables.loglinear_posterior(
        table,
        mech,
        n_records=study.n_records,
        name=f"ju2022_{key}",
        seed=SEED,
        prior=JU["loglinear"]["prior_concentration"],
        chains=CHAINS,
        burnin=BURNIN,
        **kw,
    )
    return post, study, epsilon


TABLE_KEYS = list(formats.tables_from_ju2022(read_json(TABLES_FILE), "tables"))


@pytest.mark.parametrize("key", TABLE_KEYS)
def test_loglinear_example_matches_the_study(key):
    """(a) On the published tables: with the study's streams the draws are the study's own
    (run_chains on the problem the study builds), and on our streams the posterior means agree
    with the study's within 4 combined MC errors; (c) both pass R-hat <= 1.01, ESS >= 400."""
    post, study, epsilon = _loglinear(key)
    assert post.converged and post.rhat.max() <= 1.01 and post.ess.min() >= 400
    assert post.chains.shape == (CHAINS, post.keep, 5) and post.naive.shape[1] == 5
    same, _, _ = _loglinear(key, streams=_study_streams("loglinear_fixed_data", epsilon))
    theirs = run_chains(
        "loglinear",
        JU["loglinear"]["sampler"],
        study,
        CHAINS,
        SEED,
        stream_key("loglinear_fixed_data", epsilon),
        0,
        burnin=BURNIN,
        keep=same.keep,
    )
    theirs = np.stack([c.kept for c in theirs])
    np.testing.assert_array_equal(same.chains, theirs)
    diff = np.abs(post.draws.mean(axis=0) - theirs.reshape(-1, 5).mean(axis=0))
    assert np.all(diff < 4 * np.hypot(_mcse(post.chains), _mcse(theirs)))


def test_loglinear_reports_a_cap_too_small():
    """(c) A cap below what the noisiest table needs is reported as not converged."""
    post, _, _ = _loglinear("mijk_noiselevel4_eps0.1", keep=50, max_keep=100)
    assert not post.converged and post.keep == 100 and post.chains.shape[1] == 100


@pytest.mark.parametrize("discrete", [False, True])
def test_loglinear_matches_enumerated_posterior(discrete):
    """(b) The tiny problem of tests/exact/ju2022.py (K = J = I = 2, N = 3): mean and sd of p
    within 4 MC errors of the posterior enumerated over every data set; with a discrete Laplace
    mechanism on the rounded release, the same enumeration at its scale t."""
    released = np.round(exact.RELEASED) if discrete else exact.RELEASED
    mech = DoubleGeometric.calibrated(1.0, 1.0) if discrete else Laplace(scale=0.5)
    scale = 1.0 if discrete else 0.5
    mean, sd = exact.exact_private_posterior(released, scale, exact.ALPHA_P, exact.ALPHA, exact.N)
    post = tables.loglinear_posterior(
        released,
        mech,
        n_records=exact.N,
        name="tiny",
        seed=SEED,
        prior=(exact.ALPHA_P, exact.ALPHA),
        keep=25_000,
        max_keep=25_000,
    )
    assert post.converged
    _, _, z_mean, z_sd = z_scores(post.draws, mean, sd, 0.0, 0.0)
    assert np.all(z_mean < 4) and np.all(z_sd < 4), (z_mean, z_sd)


def test_tables_refuse_without_showing_values():
    """A discrete Laplace or discrete Gaussian release of non-integers is refused naming the
    release; no cell value appears in the message."""
    with pytest.raises(tables.TableError, match="release 'tiny'.*integers") as err:
        tables.loglinear_posterior(
            exact.RELEASED, DoubleGeometric(rho=0.5), n_records=3, name="tiny", seed=1
        )
    assert "2.3" not in str(err.value)
    with pytest.raises(tables.TableError, match="release 't'.*DiscreteGaussian.*integers"):
        tables.loglinear_posterior(
            exact.RELEASED, DiscreteGaussian(sigma=1.0), n_records=3, name="t", seed=1
        )


# ----------------------------------------------------------------------------- regression
def _study_linreg(rel: formats.Ju2022Regression) -> gaussian_linreg.Problem:
    """The study's problem for the published release (its linreg_problem with the release
    given, not drawn): mechanism, prior sd and clamp from config, m, Sigma, sigma^2 from the
    authors' parameter file."""
    cfg = JU["linreg"]
    ref = gaussian_linreg.load_reference(gaussian_linreg.reference_files(DATA_JU2022)[0])
    mech = calibrate(cfg["mechanism"], rel.epsilon, cfg["sensitivity"])
    return gaussian_linreg.Problem(
        rel.statistics,
        mech.scale,
        ref.mean_x,
        ref.cov_x,
        ref.sigma2,
        cfg["prior_sd"],
        tuple(cfg["clamp"]),
        rel.n_records,
    )


def _linreg(**kw):
    rel = formats.regression_from_ju2022(read_json(REGRESSION_FILE), REGRESSION_FILE.name)
    study = _study_linreg(rel)
    ref = gaussian_linreg.load_reference(gaussian_linreg.reference_files(DATA_JU2022)[0])
    model = regression.RegressionModel(ref.mean_x, ref.cov_x, ref.sigma2, JU["linreg"]["prior_sd"])
    post = regression.linreg_posterior(
        rel.statistics,
        Laplace.calibrated(rel.epsilon, rel.sensitivity),
        n_records=rel.n_records,
        clamp=ref.clamp,
        model=model,
        name="ju2022_linreg",
        seed=SEED,
        chains=CHAINS,
        burnin=BURNIN,
        noncentred_moves=JU["converged"]["linreg"]["noncentred_moves"],
        **kw,
    )
    return post, study, rel


def test_regression_example_matches_the_study():
    """(a) The published regression release: the study's own draws on its streams, agreement of
    the means within 4 combined MC errors on ours; (c) the diagnostics pass."""
    post, study, rel = _linreg()
    assert rel.n_records == 100 and rel.p == 2 and (rel.epsilon, rel.sensitivity) == (10, 13)
    assert post.converged and post.rhat.max() <= 1.01 and post.ess.min() >= 400
    same, _, _ = _linreg(streams=_study_streams("linreg_fixed_data", rel.epsilon))
    theirs = run_chains(
        "linreg",
        JU["linreg"]["sampler"],
        study,
        CHAINS,
        SEED,
        stream_key("linreg_fixed_data", rel.epsilon),
        0,
        burnin=BURNIN,
        keep=same.keep,
        noncentred_moves=JU["converged"]["linreg"]["noncentred_moves"],
    )
    theirs = np.stack([c.kept for c in theirs])
    np.testing.assert_array_equal(same.chains, theirs)
    diff = np.abs(post.draws.mean(axis=0) - theirs.reshape(-1, 3).mean(axis=0))
    assert np.all(diff < 4 * np.hypot(_mcse(post.chains), _mcse(theirs)))


def test_regression_reports_a_cap_too_small():
    post, _, _ = _linreg(keep=20, max_keep=40)
    assert not post.converged and post.keep == 40


def test_naive_regression_is_the_conjugate_posterior_of_exact_statistics():
    """Given the noise-free statistics of the authors' data, the naive posterior is the
    conjugate posterior of the clamped records (the back-transform from [-1, 1] is exact)."""
    ref = gaussian_linreg.load_reference(*gaussian_linreg.reference_files(DATA_JU2022))
    X, y = ref.X.copy(), np.clip(ref.y, *ref.clamp)
    X[:, 1:] = np.clip(X[:, 1:], *ref.clamp)
    stats = gaussian_linreg.released_statistic(ref.X, ref.y, ref.clamp)
    model = regression.RegressionModel(ref.mean_x, ref.cov_x, ref.sigma2, ref.tau)
    mean, cov = regression.naive_posterior(stats, len(y), 2, ref.clamp, model)
    want_mean, want_cov = gaussian_linreg.conjugate_posterior(X, y, ref.sigma2, ref.tau)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cov, want_cov, rtol=1e-10, atol=1e-14)


def test_regression_refusals_name_the_release():
    rel = formats.regression_from_ju2022(read_json(REGRESSION_FILE), "f")
    model = regression.RegressionModel(np.zeros(2), np.eye(2), 2.0)
    kw = dict(n_records=100, clamp=(-10, 10), model=model, name="r", seed=1)
    with pytest.raises(regression.RegressionError, match="release 'r'.*DoubleGeometric"):
        regression.linreg_posterior(rel.statistics, DoubleGeometric(rho=0.5), **kw)
    with pytest.raises(regression.RegressionError, match="8 statistics given, 9 needed"):
        regression.linreg_posterior(rel.statistics[:8], Laplace(scale=1.0), **kw)
    with pytest.raises(regression.RegressionError, match="clamp"):
        regression.linreg_posterior(rel.statistics, Laplace(scale=1.0), **{**kw, "clamp": (1, 0)})
    bad = read_json(REGRESSION_FILE)
    bad["objects"]["sdp_T3"]["values"][0][1] += 1.0
    with pytest.raises(formats.FormatError, match="f: sdp_T3 must be symmetric"):
        formats.regression_from_ju2022(bad, "f")
