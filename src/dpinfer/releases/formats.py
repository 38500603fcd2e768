"""The ju2022 authors' published release files, read into arrays (NumPy only: the workflow reads
them when it is parsed, to check an entry before any job runs).

- :func:`tables_from_ju2022`: the log-linear example, ``objects`` named
  ``mijk_noiselevel<L>_eps<E>``, each ``values[k][j][i]`` = the noisy count of feature k + 1,
  level j + 1, class i + 1 (K, J, I);
- :func:`regression_from_ju2022`: the regression example, ``sdp_T1`` = x~'y~ (p + 1),
  ``sdp_T2`` = y~'y~, ``sdp_T3`` = x~'x~ ((p + 1) x (p + 1), [0, 0] = n) on the clamped and
  rescaled [-1, 1] scale, ``eps`` and ``deltaa`` (the sensitivity) the authors calibrated with;
  the statistics come out in :mod:`dpinfer.releases.regression`'s order.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

__all__ = ["FormatError", "Ju2022Regression", "tables_from_ju2022", "regression_from_ju2022"]


class FormatError(ValueError):
    """A release file not in the layout its entry names; the message names the file and key."""


class Ju2022Regression(NamedTuple):
    """The ju2022 regression release: statistics (d,) in stat_labels order, n, p, and the
    epsilon and sensitivity the authors calibrated the Laplace scale with."""

    statistics: np.ndarray
    n_records: int
    p: int
    epsilon: float
    sensitivity: float


_JU2022_KEY = re.compile(r"^mijk_noiselevel(\d+)_eps([0-9.]+)$")


def tables_from_ju2022(parsed: dict, where: str) -> dict[str, tuple[float, np.ndarray]]:
    """The noisy tables of the ju2022 worked example (module docstring) from the parsed JSON
    ``parsed`` of file ``where``: object name -> (epsilon, (K, J, I) table). Every object must be
    named ``mijk_noiselevel<L>_eps<E>`` and hold tables of one shape."""
    objects = parsed.get("objects") if isinstance(parsed, dict) else None
    if not isinstance(objects, dict) or not objects:
        raise FormatError(f"{where}: no 'objects' mapping of noisy tables")
    out, shape = {}, None
    for key, obj in objects.items():
        match = _JU2022_KEY.match(key)
        if match is None or not isinstance(obj, dict) or "values" not in obj:
            raise FormatError(
                f"{where}: object {key!r} is not a noisy table mijk_noiselevel<L>_eps<E>"
            )
        try:
            table = np.asarray(obj["values"], dtype=float)
        except (TypeError, ValueError):
            raise FormatError(f"{where}: {key}.values is not a numeric (K, J, I) array") from None
        if table.ndim != 3 or (shape is not None and table.shape != shape):
            raise FormatError(f"{where}: {key}.values must be (K, J, I) like every other table")
        if not np.all(np.isfinite(table)):
            raise FormatError(
                f"{where}: {key}.values has {int(np.sum(~np.isfinite(table)))} non-finite cells"
            )
        shape = table.shape
        out[key] = (float(match.group(2)), table)
    return out


def _object(objects: dict, key: str, where: str) -> np.ndarray:
    obj = objects.get(key)
    if not isinstance(obj, dict) or "values" not in obj:
        raise FormatError(f"{where}: object {key!r} with 'values' is missing")
    try:
        value = np.asarray(obj["values"], dtype=float)
    except (TypeError, ValueError):
        raise FormatError(f"{where}: {key}.values is not numeric") from None
    if not np.all(np.isfinite(value)):
        raise FormatError(f"{where}: {key}.values has non-finite entries")
    return value


def regression_from_ju2022(parsed: dict, where: str) -> Ju2022Regression:
    """The ju2022 regression release (module docstring) from the parsed JSON ``parsed`` of file
    ``where``: the statistics in stat_labels order, n = sdp_T3[0][0], p, epsilon and sensitivity
    (``eps``, ``deltaa``)."""
    objects = parsed.get("objects") if isinstance(parsed, dict) else None
    if not isinstance(objects, dict):
        raise FormatError(f"{where}: no 'objects' mapping")
    t1, t2, t3 = (_object(objects, k, where) for k in ("sdp_T1", "sdp_T2", "sdp_T3"))
    q = t1.size
    if t1.shape != (q,) or q < 2 or t2.shape != () or t3.shape != (q, q):
        raise FormatError(
            f"{where}: sdp_T1 must have p + 1 >= 2 entries, sdp_T2 be a scalar and sdp_T3 be "
            f"(p + 1, p + 1) (got {q} entries and shape {t3.shape})"
        )
    if not np.array_equal(t3, t3.T):
        raise FormatError(f"{where}: sdp_T3 must be symmetric (one noise draw per pair)")
    n = float(t3[0, 0])
    if n != round(n) or n < 1:
        raise FormatError(f"{where}: sdp_T3[0][0] must be the record count n")
    upper = [t3[j, k] for j in range(q) for k in range(j, q) if (j, k) != (0, 0)]
    eps, sens = (float(_object(objects, k, where)) for k in ("eps", "deltaa"))
    return Ju2022Regression(np.concatenate([t1, [float(t2)], upper]), int(n), q - 1, eps, sens)
