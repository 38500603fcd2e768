"""A user's confidential data set, from config to clamped arrays (pure Python and NumPy).

A data set entry names its source, its columns and the public bounds each column is clamped to
before any release (without bounds a sum over records has no finite sensitivity, so the release
would not be differentially private):

- ``source``: a CSV file (a path, relative to the project unless absolute; a header row names
  the columns) or ``statsmodels:<name>``, a data set that statsmodels ships
  (``statsmodels.datasets.<name>.load_pandas().data``, e.g. ``statsmodels:fair``);
- ``response``: the response column of a regression, or, without covariates, the 0/1 column of
  a proportion;
- ``covariates``: the covariate columns of a regression (one or more; none for a proportion);
- ``bounds``: ``{column: [lower, upper]}`` for every column used.

:func:`load` reads the columns and checks them before any sampler runs. A CSV is read by
:func:`dpinfer.user_files.read_csv_columns` (UTF-8 with or without a byte-order mark, cp1252 or
Latin-1; a header name used twice is refused). A missing or empty file or column, a non-numeric
entry, a NaN or infinite value, fewer records than regression coefficients, or a covariate that
is constant after clamping raises :class:`DataSetError` (a
:class:`~dpinfer.user_files.UserFileError`), one line naming the data set, the file or column and
the record count. Fewer than 10 records per coefficient is run with a logged warning
(:func:`dpinfer.user_files.warn_if_few_records`). Values outside the bounds are clamped and the
share clamped per column is reported (:attr:`Confidential.clamped`).

:class:`UnitScaling` maps each column onto [-1, 1] by its public bounds (the model's records,
:mod:`dpinfer.models.linreg_nig_multi`) and the regression's draws back to the data's units.

No message, log line or returned summary holds a raw value or a record: errors name columns,
counts and row numbers only, and the share clamped is an aggregate of the confidential data that
this module reports as non-private (it is not released through a mechanism).
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .user_files import (
    UserFileError,
    missing_column_error,
    read_csv_columns,
    warn_if_few_records,
)

__all__ = [
    "DataSetError",
    "DataSpec",
    "Confidential",
    "UnitScaling",
    "spec_from_config",
    "load",
]

STATSMODELS = "statsmodels:"


class DataSetError(UserFileError):
    """A data set that cannot be used: the message names the data set, the file or key, the
    column and the record count, never a value."""


class DataSpec(NamedTuple):
    name: str
    source: str
    response: str
    covariates: tuple[str, ...]
    bounds: dict[str, tuple[float, float]]


class Confidential(NamedTuple):
    """The clamped confidential records: ``X`` (n, p) covariates (p = 0 for a proportion),
    ``y`` (n,) the response; ``clamped`` maps each column to the share of its records that lay
    outside the bounds (non-private)."""

    name: str
    X: np.ndarray
    y: np.ndarray
    clamped: dict[str, float]

    @property
    def n(self) -> int:
        return int(self.y.shape[0])


def spec_from_config(name: str, entry: dict) -> DataSpec:
    """A :class:`DataSpec` from one entry of the config's ``datasets`` block (already checked by
    the schema: source, response and bounds present, bounds pairs of numbers)."""
    covariates = tuple(entry.get("covariates", ()))
    used = (entry["response"], *covariates)
    if len(set(used)) != len(used):
        raise DataSetError(f"data set {name!r}: a column is named twice in {list(used)}")
    bounds = {}
    for column in used:
        if column not in entry["bounds"]:
            raise DataSetError(
                f"data set {name!r}: bounds.{column} is missing; every column used needs public "
                "bounds [lower, upper] (without them the release is not differentially private)"
            )
        lo, hi = (float(b) for b in entry["bounds"][column])
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise DataSetError(
                f"data set {name!r}: bounds.{column} must be finite with lower < upper"
            )
        bounds[column] = (lo, hi)
    return DataSpec(name, str(entry["source"]), entry["response"], covariates, bounds)


def _read_csv(spec: DataSpec, path: Path) -> tuple[list[str], dict[str, list[str]], int]:
    """The file's header, its used columns that it has, and its record count, read by
    :func:`dpinfer.user_files.read_csv_columns` (encodings, duplicate names, one-line refusals);
    a column the file lacks is refused here, naming the file."""
    owner = f"data set {spec.name!r}"
    used = (spec.response, *spec.covariates)
    try:
        read = read_csv_columns(path, used, owner=owner)
    except UserFileError as err:
        raise DataSetError(str(err)) from None
    missing = [c for c in used if c not in read.columns]
    if missing:
        raise DataSetError(str(missing_column_error(owner, path, missing[0], read)))
    return read.header, read.columns, read.n_records


def _read_statsmodels(spec: DataSpec) -> tuple[list[str], dict[str, list], int]:
    name = spec.source[len(STATSMODELS) :]
    try:
        module = importlib.import_module(f"statsmodels.datasets.{name}")
        frame = module.load_pandas().data
    except (ImportError, AttributeError) as err:
        raise DataSetError(
            f"data set {spec.name!r}: statsmodels ships no data set {name!r} ({type(err).__name__})"
        ) from None
    header = [str(c) for c in frame.columns]
    columns = {c: list(frame[c]) for c in (spec.response, *spec.covariates) if c in header}
    return header, columns, len(frame)


def _numeric(spec: DataSpec, column: str, raw: list, n_rows: int) -> np.ndarray:
    """The column as floats; a non-numeric, NaN or infinite entry is refused by row number."""
    out = np.empty(n_rows)
    bad_text, bad_value = [], []
    for i, v in enumerate(raw):
        try:
            out[i] = float(v.strip() if isinstance(v, str) else v)
        except (TypeError, ValueError):
            bad_text.append(i)
            continue
        if not math.isfinite(out[i]):
            bad_value.append(i)
    # row numbers count from 1 over the data records (a CSV's header is row 0)
    for rows, what in ((bad_text, "non-numeric or empty"), (bad_value, "NaN or infinite")):
        if rows:
            raise DataSetError(
                f"data set {spec.name!r} ({n_rows:,} records): column {column!r} has "
                f"{len(rows):,} {what} entries (first at record {rows[0] + 1})"
            )
    return out


def load(spec: DataSpec, root: Path | str = ".") -> Confidential:
    """The checked, clamped records of ``spec`` (see the module docstring for what is refused)."""
    if spec.source.startswith(STATSMODELS):
        header, columns, n_rows = _read_statsmodels(spec)
    else:
        path = Path(spec.source)
        header, columns, n_rows = _read_csv(spec, path if path.is_absolute() else Path(root) / path)
    missing = [c for c in (spec.response, *spec.covariates) if c not in columns]
    if missing:
        raise DataSetError(
            f"data set {spec.name!r} ({n_rows:,} records): column {missing[0]!r} is not in its "
            f"columns {header}"
        )
    p = len(spec.covariates)
    if n_rows <= p:
        raise DataSetError(
            f"data set {spec.name!r} ({n_rows:,} records): a regression on {p} covariates and an "
            f"intercept needs more than {p} records"
            if p
            else f"data set {spec.name!r} has no records"
        )
    warn_if_few_records(n_rows, p, owner=f"data set {spec.name!r}")
    values, clamped = {}, {}
    for column in (spec.response, *spec.covariates):
        v = _numeric(spec, column, columns[column], n_rows)
        lo, hi = spec.bounds[column]
        clamped[column] = float(np.mean((v < lo) | (v > hi)))
        values[column] = np.clip(v, lo, hi)
    not_binary = int(np.sum((values[spec.response] != 0.0) & (values[spec.response] != 1.0)))
    if not p and not_binary:
        raise DataSetError(
            f"data set {spec.name!r} ({n_rows:,} records): column {spec.response!r} is the "
            "response of a proportion (no covariates), so every entry must be 0 or 1; "
            f"{not_binary:,} are not"
        )
    for column in spec.covariates:
        if np.ptp(values[column]) == 0.0:
            raise DataSetError(
                f"data set {spec.name!r} ({n_rows:,} records): covariate {column!r} is constant "
                "after clamping to its bounds, so its coefficient is not identified apart from "
                "the intercept"
            )
    X = np.column_stack([values[c] for c in spec.covariates]) if p else np.empty((n_rows, 0))
    return Confidential(spec.name, X, values[spec.response], clamped)


class UnitScaling(NamedTuple):
    """The public affine map of every column onto [-1, 1], v~ = (v - centre) / half, from its
    bounds (covariates first, the response last), and its inverse on the regression's draws."""

    centre: np.ndarray
    half: np.ndarray

    @classmethod
    def of(cls, spec: DataSpec) -> UnitScaling:
        lo, hi = np.array([spec.bounds[c] for c in (*spec.covariates, spec.response)]).T
        return cls(0.5 * (lo + hi), 0.5 * (hi - lo))

    def to_unit(self, data: Confidential) -> tuple[np.ndarray, np.ndarray]:
        """(X~, y~) in [-1, 1] of clamped records."""
        p = data.X.shape[1]
        X = (data.X - self.centre[:p]) / self.half[:p]
        y = (data.y - self.centre[p]) / self.half[p]
        return np.clip(X, -1.0, 1.0), np.clip(y, -1.0, 1.0)  # round-off only

    def to_original(self, draws: np.ndarray) -> np.ndarray:
        """Draws of (beta~_1..beta~_p, intercept~, sigma~^2) on the unit scale -> the data's
        units: y = c_y + h_y (sum_j beta~_j (x_j - c_j)/h_j + intercept~ + e~), so
        beta_j = h_y beta~_j / h_j, intercept = c_y + h_y (intercept~ - sum_j beta~_j c_j / h_j)
        and sigma^2 = h_y^2 sigma~^2."""
        draws = np.asarray(draws, dtype=float)
        p = draws.shape[1] - 2
        c_x, h_x, c_y, h_y = self.centre[:p], self.half[:p], self.centre[p], self.half[p]
        out = np.empty_like(draws)
        out[:, :p] = h_y * draws[:, :p] / h_x
        out[:, p] = c_y + h_y * (draws[:, p] - draws[:, :p] @ (c_x / h_x))
        out[:, p + 1] = h_y**2 * draws[:, p + 1]
        return out
