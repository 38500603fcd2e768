"""Naive-Bayes log-linear model of ju2022 (Sec. 4): data, sufficient statistics, conjugacy.

A record is a class y in {0..I-1} and K categorical features, each with J levels;
p_i = P(y = i) and pi[k, j, i] = P(x_k = j | y = i). The sufficient statistic is the stack of
K tables n[k, j, i] = #(y = i, x_k = j), released with Laplace noise on every cell.
Priors: p ~ Dirichlet(alpha_p), pi[k, :, i] ~ Dirichlet(alpha[k, :, i]).

Arrays are (K, J, I) as in the authors' data files (values[k][j][i]).

Samplers of this model (registry model ``"loglinear"``) are called through the registry as
``run(problem, rng, *, burnin, keep) -> Chain`` with :class:`Problem`: ``released`` (K, J, I)
noisy counts, ``scale`` the Laplace scale of each cell's noise (the release record's ``scale``;
with ``noise = "gaussian"`` its sd),
``alpha_p`` (I,) and ``alpha`` (K, J, I) the Dirichlet parameters, ``n_records`` the number of
latent records; the chain's draws are p (iterations, I). Method ``"record_wise"``:
:func:`dpinfer.samplers.data_augmentation.run_loglinear`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..io import read_json

__all__ = [
    "Problem",
    "PARAMETER_FILE",
    "DATA_FILE",
    "NaiveBayesTruth",
    "reference_files",
    "load_reference",
    "simulate_records",
    "count_tables",
    "class_counts",
    "posterior_mean_p",
    "sensitivity_l1",
]


@dataclass(frozen=True)
class Problem:
    """What a sampler of this model conditions on: the release, its noise (law ``noise``,
    "laplace" or "gaussian", with ``scale`` its Laplace scale or Gaussian sd) and the prior."""

    released: np.ndarray
    scale: float
    alpha_p: np.ndarray
    alpha: np.ndarray
    n_records: int
    noise: str = "laplace"


@dataclass(frozen=True)
class NaiveBayesTruth:
    """True parameters, priors and the fixed confidential data of the authors' study."""

    p: np.ndarray  # (I,)
    pi: np.ndarray  # (K, J, I)
    alpha_p: np.ndarray  # (I,)
    alpha: np.ndarray  # (K, J, I)
    counts: np.ndarray | None  # (K, J, I) confidential counts of the fixed data set (int)

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.pi.shape

    @property
    def n_records(self) -> int:
        return int(self.counts[0].sum())


PARAMETER_FILE = "loglinear_datageneratingparameters.json"
DATA_FILE = "loglinear_notdpdata_N100.json"


def _values(path, name: str) -> np.ndarray:
    return np.asarray(read_json(path)["objects"][name]["values"])


def reference_files(data_dir) -> tuple[Path, Path]:
    """(parameters, data) paths of the authors' files in ``data_dir``."""
    d = Path(data_dir)
    return d / PARAMETER_FILE, d / DATA_FILE


def load_reference(
    parameters, data=None, prior_concentration: float | None = None
) -> NaiveBayesTruth:
    """Load the authors' log-linear parameters (file ``parameters``, PARAMETER_FILE) and
    confidential tables (file ``data``, DATA_FILE; None: no tables, ``counts`` is None).

    ``prior_concentration`` overrides the Dirichlet parameters (all equal) when given.
    """
    par = Path(parameters)
    p = _values(par, "p").astype(float)
    pi = _values(par, "pijk").astype(float)
    alpha_p = _values(par, "alp").astype(float)
    alpha = _values(par, "alpha").astype(float)
    if prior_concentration is not None:
        alpha_p = np.full_like(alpha_p, float(prior_concentration))
        alpha = np.full_like(alpha, float(prior_concentration))
    if not np.allclose(pi.sum(axis=1), 1.0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"inconsistent log-linear parameters in {par}")
    if data is None:
        return NaiveBayesTruth(p=p, pi=pi, alpha_p=alpha_p, alpha=alpha, counts=None)
    counts = _values(Path(data), "nijk").astype(np.int64)
    if counts.shape != pi.shape:
        raise ValueError(f"the tables of {data} do not match the parameters of {par}")
    if not np.all(counts.sum(axis=(1, 2)) == counts[0].sum()):
        raise ValueError("every feature table must count the same records")
    return NaiveBayesTruth(p=p, pi=pi, alpha_p=alpha_p, alpha=alpha, counts=counts)


def simulate_records(rng: np.random.Generator, p, pi, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw n records: classes (n,) and answers (n, K)."""
    p, pi = np.asarray(p, float), np.asarray(pi, float)
    K = pi.shape[0]
    classes = rng.choice(p.size, size=n, p=p)
    answers = np.empty((n, K), dtype=np.int64)
    for k in range(K):
        cum = np.cumsum(pi[k][:, classes], axis=0)  # (J, n)
        u = rng.random(n)
        answers[:, k] = np.minimum((u[None, :] > cum).sum(axis=0), pi.shape[1] - 1)
    return classes.astype(np.int64), answers


def count_tables(classes, answers, J: int, I: int) -> np.ndarray:
    """The (K, J, I) tables n[k, j, i] = #(class i, feature k at level j)."""
    classes, answers = np.asarray(classes), np.asarray(answers)
    K = answers.shape[1]
    t = np.zeros((K, J, I), dtype=np.int64)
    for k in range(K):
        np.add.at(t[k], (answers[:, k], classes), 1)
    return t


def class_counts(tables) -> np.ndarray:
    """Class counts n_i, read off the first feature table."""
    return np.asarray(tables)[0].sum(axis=0)


def posterior_mean_p(tables, alpha_p) -> np.ndarray:
    """Non-private posterior mean of p: (n_i + alpha_i) / (N + sum alpha)."""
    n = class_counts(tables).astype(float) + np.asarray(alpha_p, float)
    return n / n.sum()


def sensitivity_l1(K: int) -> int:
    """L1 sensitivity 2K of the K stacked tables under replace-one-record neighbours."""
    return 2 * int(K)
