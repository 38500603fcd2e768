"""Linear regression with Gaussian covariates and known variance (ju2022, Sec. 5).

x_0 ~ N_p(m, Sigma), y | x ~ N((1, x_0) beta, sigma^2), beta ~ N(0, tau^2 I); m, Sigma, sigma^2
known. The released statistic is s = (x~'y~, y~'y~, unique entries of x~'x~ except [0, 0]) of
the clamped and rescaled records (Definition 5.1 and Sec. 5 of ju2022), d = (p+1) + 1 +
(p+1)(p+2)/2 - 1 entries, each with Laplace noise (ju2022's; Gaussian noise too here).

Samplers of this model (registry model ``"linreg"``) are called through the registry as
``run(problem, rng, *, burnin, keep) -> Chain`` with :class:`Problem`: ``released`` the d noisy
statistics in :func:`stat_labels` order, ``scale`` the Laplace scale (the release record's
``scale``; with ``noise = "gaussian"`` the sd), ``clamp`` = (a, b) for every covariate and the
response, ``n_records`` the number of latent records; the chain's draws are beta (iterations,
p+1). Method ``"record_wise"``: :func:`dpinfer.samplers.data_augmentation.run_linreg`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..io import read_json
from ..mechanisms import ClampRescale

__all__ = [
    "Problem",
    "PARAMETER_FILE",
    "DATA_FILE",
    "LinregTruth",
    "reference_files",
    "load_reference",
    "simulate_data",
    "stat_dim",
    "stat_labels",
    "released_statistic",
    "conjugate_posterior",
    "sensitivity_l1_printed",
    "sensitivity_l1_entrywise",
]


@dataclass(frozen=True)
class Problem:
    """What a sampler of this model conditions on: the release, its noise (law ``noise``,
    "laplace" or "gaussian", with ``scale`` its Laplace scale or Gaussian sd), the known
    covariate law and variance, the prior sd and the clamp."""

    released: np.ndarray
    scale: float
    mean_x: np.ndarray
    cov_x: np.ndarray
    sigma2: float
    tau: float
    clamp: tuple
    n_records: int
    noise: str = "laplace"


@dataclass(frozen=True)
class LinregTruth:
    beta: np.ndarray  # (p+1,) true coefficients incl. intercept
    mean_x: np.ndarray  # (p,)
    cov_x: np.ndarray  # (p, p)
    sigma2: float
    tau: float  # prior sd of each beta component
    clamp: tuple  # (lower, upper) bounds, same for x and y in the authors' study
    X: np.ndarray | None  # (n, p+1) fixed confidential design incl. intercept column
    y: np.ndarray | None  # (n,)

    @property
    def p(self) -> int:
        return self.mean_x.size


PARAMETER_FILE = "linearregression_datageneratingparam_N100p2.json"
DATA_FILE = "linearregression_XY_N100p2.json"


def reference_files(data_dir) -> tuple[Path, Path]:
    """(parameters, data) paths of the authors' files in ``data_dir``."""
    d = Path(data_dir)
    return d / PARAMETER_FILE, d / DATA_FILE


def load_reference(parameters, data=None) -> LinregTruth:
    """The authors' true parameters (file ``parameters``, PARAMETER_FILE) and fixed
    confidential data set (file ``data``, DATA_FILE; None: no data set, ``X`` and ``y`` None)."""
    par = read_json(Path(parameters))["objects"]
    xy = read_json(Path(data))["objects"] if data is not None else None
    cl = np.asarray(par["clbounds"]["values"], float)  # x_lo, y_lo, x_hi, y_hi
    if not (cl[0] == cl[1] and cl[2] == cl[3]):
        raise ValueError("this implementation expects the same clamp bounds for x and y")
    return LinregTruth(
        beta=np.asarray(par["beta_star"]["values"], float),
        mean_x=np.asarray(par["m_star"]["values"], float),
        cov_x=np.asarray(par["Sigma_star"]["values"], float),
        sigma2=float(par["sigma2_star"]["values"]),
        tau=float(par["tau_star"]["values"]),
        clamp=(float(cl[0]), float(cl[2])),
        X=np.asarray(xy["X"]["values"], float) if xy is not None else None,
        y=np.asarray(xy["Y"]["values"], float) if xy is not None else None,
    )


def simulate_data(rng: np.random.Generator, beta, mean_x, cov_x, sigma2: float, n: int):
    """Draw (X with intercept column, y)."""
    x0 = rng.multivariate_normal(
        np.asarray(mean_x, float), np.asarray(cov_x, float), size=n, method="cholesky"
    )
    X = np.column_stack([np.ones(n), x0])
    y = X @ np.asarray(beta, float) + rng.normal(0.0, np.sqrt(sigma2), size=n)
    return X, y


def stat_dim(p: int) -> int:
    return (p + 1) + 1 + (p + 1) * (p + 2) // 2 - 1


def stat_labels(p: int) -> list[str]:
    names = [f"xy[{j}]" for j in range(p + 1)] + ["yy"]
    names += [f"xx[{j},{k}]" for j in range(p + 1) for k in range(j, p + 1) if (j, k) != (0, 0)]
    return names


def released_statistic(X, y, clamp: tuple) -> np.ndarray:
    """The d noise-free statistics of clamped, rescaled records, in the order of stat_labels."""
    c = ClampRescale(*clamp)
    Xt = np.column_stack([np.ones(len(y)), c.apply(np.asarray(X)[:, 1:])])
    yt = c.apply(y)
    p = Xt.shape[1] - 1
    xx = Xt.T @ Xt
    out = list(Xt.T @ yt) + [yt @ yt]
    out += [xx[j, k] for j in range(p + 1) for k in range(j, p + 1) if (j, k) != (0, 0)]
    return np.asarray(out)


def conjugate_posterior(X, y, sigma2: float, tau: float):
    """Mean and covariance of beta | X, y with beta ~ N(0, tau^2 I) (supplement S-5)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    prec = X.T @ X / sigma2 + np.eye(X.shape[1]) / tau**2
    cov = np.linalg.inv(prec)
    return cov @ (X.T @ y) / sigma2, cov


def sensitivity_l1_printed(p: int) -> int:
    """Delta = p^2 + 3p + 3 as printed in ju2022 Sec. 5 (13 for p = 2)."""
    return p * p + 3 * p + 3


def sensitivity_l1_entrywise(p: int) -> int:
    """Sum over the d statistics of each entry's own largest change (values in [-1, 1]).

    x~'y~: 2 per entry (p+1); y~'y~: 1; x~'x~ off-diagonal incl. the sums of x: 2 each;
    diagonal squares: 1 each (p). For p = 2: 6 + 1 + 6 + 2 = 15. This bounds the L1
    sensitivity under replace-one-record from above but is not attained: the entries cannot all
    change by their maximum at once (for p = 2 the exact supremum is 9.375 < 13, see
    tests/test_ju2022_samplers.py), so the printed Delta = 13 is valid, if conservative.
    """
    off_diag = (p + 1) * (p + 2) // 2 - 1 - p
    return 2 * (p + 1) + 1 + 2 * off_diag + p
