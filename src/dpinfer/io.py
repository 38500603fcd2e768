"""Atomic writes and small file helpers (npz, json, tables).

Every file the pipeline produces is written to a temporary file in the same folder and moved
into place with ``os.replace``, so an interrupted job never leaves a half-written output that a
resumed run would mistake for a finished one. The temporary file (``mkstemp``, mode 0600) gets
the mode an ordinary new file would get under the user's umask before it is moved, so
collaborators on a shared file system can read the results.
"""

from __future__ import annotations

import contextlib
import csv
import io as _io
import json
import os
import tempfile
from pathlib import Path

import numpy as np

__all__ = [
    "atomic_path",
    "write_text",
    "write_json",
    "read_json",
    "save_npz",
    "load_npz",
    "write_csv",
    "write_markdown",
    "write_table",
    "format_value",
]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path, suffix: str | None = None):
    """Yield a temporary path beside ``path``; move it onto ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=suffix or path.suffix
    )
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path, obj) -> None:
    write_text(path, json.dumps(obj, indent=1, sort_keys=True) + "\n")


def read_json(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def save_npz(path, **arrays) -> None:
    """Save arrays atomically (uncompressed npz; no pickled objects)."""
    for name, value in arrays.items():
        if np.asarray(value).dtype == object:
            raise TypeError(f"array {name!r} has dtype object: npz files here never hold pickles")
    with atomic_path(path, suffix=".npz") as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)


def load_npz(path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def format_value(value, digits: int = 3) -> str:
    """Text for a table cell: ``digits`` decimals, or scientific notation with ``digits``
    significant digits when a non-zero value would round to zero (so 1e-6 is not printed as
    0.000, nor a small negative MMD^2 as -0.000); refuses NaN/inf so none reaches a table."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"non-finite value {v} would reach a table")
    if v == 0.0:
        return f"{0.0:.{digits}f}"  # also -0.0
    if abs(v) < 0.5 * 10.0 ** (-digits):
        return f"{v:.{max(digits - 1, 1)}e}"
    return f"{v:.{digits}f}"


def write_csv(path, rows: list[dict], columns: list[str], digits: int = 3) -> None:
    """Tidy CSV: one row per dict, cells formatted by :func:`format_value`."""
    if not rows:
        raise ValueError("a table needs at least one row")
    buf = _io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows({c: format_value(r.get(c), digits) for c in columns} for r in rows)
    write_text(path, buf.getvalue())


def write_markdown(
    path, rows: list[dict], columns: list[str], *, title: str = "", notes: str = "", digits: int = 3
) -> None:
    """A Markdown table with an optional title and notes below it."""
    if not rows:
        raise ValueError("a table needs at least one row")
    lines = [f"# {title}", ""] if title else []
    lines.append("| " + " | ".join(columns) + " |")
    lines.append("|" + "|".join("---" for _ in columns) + "|")
    for r in rows:
        lines.append("| " + " | ".join(format_value(r.get(c), digits) for c in columns) + " |")
    if notes:
        lines += ["", notes.strip()]
    write_text(path, "\n".join(lines) + "\n")


def write_table(
    csv_path,
    md_path,
    rows: list[dict],
    columns: list[str],
    *,
    title: str = "",
    notes: str = "",
    digits: int = 3,
) -> None:
    """Write one table as tidy CSV and as Markdown with the same columns and numbers."""
    write_csv(csv_path, rows, columns, digits)
    write_markdown(md_path, rows, columns, title=title, notes=notes, digits=digits)
