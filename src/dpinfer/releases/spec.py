"""One entry of the config's ``releases`` section, checked and read: the released values from the
user's file, the mechanism, the public facts the model needs and the prior.

An entry (docs/your-release.md has a worked example per model)::

    <name>:
      file: data/user/my_release.json   # CSV or JSON (formats below)
      model: binomial | multinomial | loglinear | linreg | nig_regression
      mechanism: {kind: laplace, scale: 2.0}      # or epsilon (+ delta) and sensitivity
      n: 1000                                     # records behind the release (public)
      prior: {...}                                # optional; defaults below

Formats of the file (``format: values``, the default): a JSON object ``{"released": ...}`` (a
number for a binomial, a list of K for a multinomial, a nested (K, J, I) list for a log-linear
table, the list of statistics for a regression) or a CSV with a column ``released``, one value
per row in that order (a table row-major, with ``shape: [K, J, I]`` in the entry).
``format: ju2022`` reads the ju2022 authors' published JSON layout (``objects``; a log-linear
entry names its table with ``object``).

Per model: ``binomial`` (one count of n; prior ``{a, b}`` of the Beta, default 1, 1),
``multinomial`` (K >= 2 counts summing to n; prior ``{alpha}``, default 1 per category),
``loglinear`` (K features x J levels x I classes of ju2022's naive-Bayes log-linear model;
prior ``{concentration}``, default 2 as ju2022), ``linreg`` (ju2022's regression on p
covariates clamped to ``clamp: [a, b]`` and rescaled to [-1, 1], the covariates' known
``covariate_mean`` (p) and ``covariate_cov`` (p x p) and the residual ``noise_variance``;
prior ``{tau}``, the coefficients' prior sd, default 2), ``nig_regression`` (chapter 5's NIG
regression, the covariates' law unknown: the (p + 2)(p + 3)/2 - 1 sums of :mod:`.nig`'s order
of the records clamped to ``bounds: [[lo, hi], ...]``, the p covariates' then the response's,
and rescaled to [-1, 1]; prior ``{mu0, precision, a0, b0}`` and ``data_prior``
``{m0, kappa, psi, nu}`` on that scale, defaults :data:`NIG_PRIOR`, :data:`NIG_DATA_PRIOR`).

Every refusal is one :class:`ReleaseError` naming the entry's key or the file (and counts), never
a value of the file.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..user_files import UserFileError, missing_column_error, read_csv_columns, read_json
from .formats import FormatError, regression_from_ju2022, tables_from_ju2022
from .mechanism_spec import DISCRETE, MechanismError, check_mechanism

__all__ = ["MODELS", "ReleaseError", "Release", "release_of", "release_from_values"]

MODELS = ("binomial", "multinomial", "loglinear", "linreg", "nig_regression")
# nig_regression's priors on the unit scale: the own-data study's (config/config.yaml, own_data)
NIG_PRIOR = {"mu0": 0.0, "precision": 1.0, "a0": 3.0, "b0": 0.5}
NIG_DATA_PRIOR = {"m0": 0.0, "kappa": 1.0, "psi": 1.0, "nu": 12.0}
_DEFAULT_PRIOR = {
    "binomial": {"a": 1.0, "b": 1.0},
    "multinomial": {"alpha": 1.0},
    "loglinear": {"concentration": 2.0},
    "linreg": {"tau": 2.0},
    "nig_regression": NIG_PRIOR,
}


class ReleaseError(UserFileError):
    """A release entry or file that cannot be used; the message names the key or the file and
    shows no value (a job refuses it in one line: :func:`dpinfer.pipeline.run_step`)."""


class Release(NamedTuple):
    """A checked release: ``values`` shaped for its model (binomial (1,), multinomial (K,),
    loglinear (K, J, I), linreg (d,) statistics), the mechanism entry (checked; built by
    :func:`~.mechanism_spec.mechanism_of` where the chains run), ``n`` and the model's other
    public facts and prior (``public``: clamp, mean_x, cov_x, sigma2 for linreg; bounds and
    data_prior for nig_regression)."""

    name: str
    model: str
    values: np.ndarray
    mechanism: dict
    n: int
    prior: dict
    public: dict


def _read_values(name: str, entry: dict, path: Path, where: str):
    """The released values of the entry's file, as read (checked by :func:`release_from_values`)."""
    owner = f"release {name!r}"
    fmt = entry.get("format", "values")
    if fmt == "ju2022":
        parsed = read_json(path, owner=owner)
        if entry["model"] == "linreg":
            return regression_from_ju2022(parsed, f"{owner}, file {path}").statistics
        tables = tables_from_ju2022(parsed, f"{owner}, file {path}")
        if entry.get("object") not in tables:
            raise ReleaseError(f"{where}.object must name one of the file's {len(tables)} tables")
        return tables[entry["object"]][1]
    if fmt != "values":
        raise ReleaseError(f"{where}.format must be 'values' or 'ju2022'")
    if path.suffix.lower() == ".json":
        parsed = read_json(path, owner=owner)
        if not isinstance(parsed, dict) or "released" not in parsed:
            raise ReleaseError(f"{owner}: file {path} has no key 'released'")
        raw = parsed["released"]
    else:
        read = read_csv_columns(path, ["released"], owner=owner)
        if "released" not in read.columns:
            raise missing_column_error(owner, path, "released", read)
        raw = [c.strip() for c in read.columns["released"]]
    return raw


def _expected_shape(model: str, entry: dict, values: np.ndarray, where: str) -> tuple:
    if model == "binomial":
        return (1,)
    if model == "multinomial":
        if values.size < 2:
            raise ReleaseError(f"{where}: a multinomial release needs K >= 2 counts")
        return (values.size,)
    if model == "loglinear":
        shape = entry.get("shape", values.shape if values.ndim == 3 else None)
        if shape is None or len(shape) != 3 or min(int(s) for s in shape) < 1:
            raise ReleaseError(f"{where}.shape must be [K, J, I] for a flat table")
        return tuple(int(s) for s in shape)
    if model == "nig_regression":  # p + 1 bounds pairs: (p + 2)(p + 3)/2 - 1 sums
        return ((len(entry["bounds"]) + 1) * (len(entry["bounds"]) + 2) // 2 - 1,)
    p = len(entry.get("covariate_mean", ()))
    q = p + 1
    return (q + 1 + q * (q + 1) // 2 - 1,)  # x'y, y'y, upper x'x without n


def _regression_public(entry: dict, where: str) -> dict:
    for key in ("clamp", "covariate_mean", "covariate_cov", "noise_variance"):
        if key not in entry:
            raise ReleaseError(f"{where}.{key} is needed for a linreg release")
    lo, hi = (float(v) for v in entry["clamp"])
    if not lo < hi:
        raise ReleaseError(f"{where}.clamp needs lower < upper")
    mean = np.asarray(entry["covariate_mean"], dtype=float)
    cov = np.asarray(entry["covariate_cov"], dtype=float)
    p = mean.size
    if p < 1 or cov.shape != (p, p) or not np.allclose(cov, cov.T):
        raise ReleaseError(f"{where}.covariate_cov must be a symmetric {p} x {p} matrix")
    if np.linalg.eigvalsh(cov)[0] <= 0:
        raise ReleaseError(f"{where}.covariate_cov must be positive definite")
    sigma2 = float(entry["noise_variance"])
    if not (math.isfinite(sigma2) and sigma2 > 0):
        raise ReleaseError(f"{where}.noise_variance must be positive")
    return {"clamp": (lo, hi), "mean_x": mean, "cov_x": cov, "sigma2": sigma2}


def _nig_public(entry: dict, where: str) -> dict:
    """nig_regression's ``bounds`` (the p covariates', then the response's [lower, upper]) and
    ``data_prior`` (NIG_DATA_PRIOR's keys, unit scale)."""
    bounds = entry.get("bounds")
    if not isinstance(bounds, (list, tuple)) or len(bounds) < 2:
        raise ReleaseError(
            f"{where}.bounds must list [lower, upper] of each covariate, then of the response"
        )
    pairs = []
    for j, pair in enumerate(bounds):
        try:
            lo, hi = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise ReleaseError(f"{where}.bounds[{j}] must be a pair [lower, upper]") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ReleaseError(f"{where}.bounds[{j}] must be finite with lower < upper")
        pairs.append((lo, hi))
    data_prior = dict(NIG_DATA_PRIOR, **(entry.get("data_prior") or {}))
    unknown = set(data_prior) - set(NIG_DATA_PRIOR)
    if unknown:
        raise ReleaseError(f"{where}.data_prior.{sorted(unknown)[0]} is not a data_prior key")
    return {"bounds": pairs, "data_prior": data_prior}


def _entry_checks(name: str, entry: dict, where: str):
    """(model, n, mechanism, public) of an entry, before its file is read."""
    model = entry.get("model")
    if model not in MODELS:
        raise ReleaseError(f"{where}.model must be one of {', '.join(MODELS)}")
    for key in ("mechanism", "n"):
        if key not in entry:
            raise ReleaseError(f"{where}.{key} is missing")
    n = entry["n"]
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ReleaseError(f"{where}.n must be a positive whole number of records")
    try:
        check_mechanism(entry["mechanism"], where=f"{where}.mechanism")
    except MechanismError as err:
        raise ReleaseError(str(err)) from None
    public = _regression_public(entry, where) if model == "linreg" else {}
    if model == "nig_regression":
        public = _nig_public(entry, where)
    return model, int(n), public


def release_of(name: str, entry: dict, root: Path | str = ".", *, where: str = "") -> Release:
    """The checked :class:`Release` of config entry ``releases.entries.<name>`` (``root``: the
    project, against which a relative ``file`` is read)."""
    where = where or f"releases.entries.{name}"
    _entry_checks(name, entry, where)
    if "file" not in entry:
        raise ReleaseError(f"{where}.file is missing")
    path = Path(entry["file"])
    path = path if path.is_absolute() else Path(root) / path
    try:
        values = _read_values(name, entry, path, where)
    except (UserFileError, FormatError) as err:
        raise ReleaseError(str(err)) from None
    return release_from_values(name, entry, values, where=where, source=f"file {entry['file']}")


def release_from_values(
    name: str, entry: dict, values, *, where: str = "", source: str = "the values given"
) -> Release:
    """The checked :class:`Release` of ``entry`` (as in the config, without ``file``) and its
    released ``values`` (``source`` names where they came from, for messages)."""
    where = where or f"release {name!r}"
    model, n, public = _entry_checks(name, entry, where)
    try:
        values = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ReleaseError(
            f"release {name!r}: {source}: a released value is not a number"
        ) from None
    if not np.all(np.isfinite(values)):
        bad = int(np.sum(~np.isfinite(values)))
        raise ReleaseError(f"release {name!r}: {source}: {bad} released values are not finite")
    shape = _expected_shape(model, entry, values, where)
    if values.size != math.prod(shape):
        raise ReleaseError(
            f"release {name!r}: {values.size} released values in {source}; a {model} release "
            f"of this entry has {math.prod(shape)}"
        )
    values = values.reshape(shape)
    kind = entry["mechanism"].get("kind")
    if kind in DISCRETE and not np.all(values == np.round(values)):
        raise ReleaseError(
            f"release {name!r}: {source}: a {kind} mechanism releases whole numbers, and "
            f"{int(np.sum(values != np.round(values)))} released values are not"
        )
    prior = dict(_DEFAULT_PRIOR[model], **(entry.get("prior") or {}))
    unknown = set(prior) - set(_DEFAULT_PRIOR[model])
    if unknown:
        raise ReleaseError(f"{where}.prior.{sorted(unknown)[0]} is not a {model} prior key")
    return Release(name, model, values, dict(entry["mechanism"]), n, prior, public)
