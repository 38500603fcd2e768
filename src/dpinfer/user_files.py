"""Files a user gives (an own-data CSV, a release's values), read as data, not parameters.

One reader for every file a user hands the pipeline, so each kind of bad file is refused the
same way wherever it comes in:

- encodings: UTF-8 with or without a byte-order mark (the mark never sticks to the first column
  name), UTF-16 with its mark, and files saved as Windows-1252 or Latin-1 (a file that is not
  valid UTF-8 is read as cp1252, then as Latin-1, which decodes any byte); the encoding used is
  returned, never a bare ``UnicodeDecodeError``;
- a CSV's header names are stripped of surrounding blanks; a name used twice is refused (which
  column would be meant is a guess), as are a missing file, an empty file and a missing column;
- rows shorter than the header read as empty cells in the columns they lack (the caller's
  numeric check refuses them by record number); extra cells are ignored;
- a JSON file that does not parse is refused by line and column.

Every refusal is a :class:`UserFileError` whose message is one line naming the owner (e.g.
``data set 'fair'`` or ``release 'tables'``), the file and the column, key or record, and counts:
never a cell, a byte or a line of the file, which may be confidential.

:func:`warn_if_few_records` states the minimum-n policy: a regression on p covariates wants at
least ``MIN_RECORDS_PER_COEFFICIENT`` = 10 records per coefficient, intercept included
(n >= 10 (p + 1); a proportion, p = 0, wants 10 records). Below it the data still run (the
posterior is valid for what the data say) but a warning is logged, since with so few records the
noise of any useful epsilon swamps them and the prior decides the answer.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections import Counter
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "MIN_RECORDS_PER_COEFFICIENT",
    "UserFileError",
    "CsvColumns",
    "decode",
    "read_csv_columns",
    "missing_column_error",
    "read_json",
    "min_records",
    "warn_if_few_records",
]

log = logging.getLogger("dpinfer.user_files")

MIN_RECORDS_PER_COEFFICIENT = 10
# tried in order on bytes without a byte-order mark; latin-1 decodes any byte, so it is last
_FALLBACK_ENCODINGS = ("utf-8", "cp1252", "latin-1")
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


class UserFileError(ValueError):
    """A user's file that cannot be used: one line naming the owner, the file and the column,
    key or record, and counts; never a value of the file."""


class CsvColumns(NamedTuple):
    """What :func:`read_csv_columns` read: the header (stripped names), the requested columns it
    has (raw cells, one per record), the record count and the encoding the file was read in."""

    header: list[str]
    columns: dict[str, list[str]]
    n_records: int
    encoding: str


def _where(owner: str, path: Path) -> str:
    return f"{owner}: file {str(path)!r}"


def _read_bytes(path: Path, owner: str) -> bytes:
    if not path.is_file():
        raise UserFileError(f"{_where(owner, path)} does not exist")
    try:
        return path.read_bytes()
    except OSError as err:  # the OS's reason (permissions), not the content
        raise UserFileError(f"{_where(owner, path)} cannot be read ({err.strerror})") from None


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) of a user's file: by its byte-order mark if it has one, else the first of
    UTF-8, cp1252 and Latin-1 that decodes it (Latin-1 always does)."""
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError:
                data = data[len(mark) :]  # a stray mark: drop it and guess below
                break
    for encoding in _FALLBACK_ENCODINGS:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def _text(path: Path, owner: str) -> tuple[str, str]:
    text, encoding = decode(_read_bytes(path, owner))
    if encoding not in ("utf-8", "utf-8-sig"):
        log.info("%s is not UTF-8: read as %s", _where(owner, path), encoding)
    return text, encoding


def read_csv_columns(path: Path | str, columns, *, owner: str) -> CsvColumns:
    """Read the header and ``columns`` of the CSV file at ``path`` (see the module docstring for
    what is refused). A requested column the header lacks is left out of ``columns``: the caller
    refuses it with its own counts (:func:`missing_column_error` words it)."""
    path = Path(path)
    text, encoding = _text(path, owner)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise UserFileError(f"{_where(owner, path)} is empty (no header row)")
        header = [h.strip() for h in header]
        records = list(reader)
    except csv.Error:
        # e.g. a cell over the field limit: say where, not what (the parser's text may quote it)
        raise UserFileError(
            f"{_where(owner, path)} is not a readable CSV file at line {reader.line_num}"
        ) from None
    twice = [name for name, k in Counter(header).items() if k > 1 and name]
    if twice and _looks_numeric(twice[0]):  # a record where the header should be: no value
        raise UserFileError(
            f"{_where(owner, path)}: its first row repeats a number as a column name: is the "
            "header row missing?"
        )
    if twice:
        raise UserFileError(
            f"{_where(owner, path)}: column {twice[0]!r} is named {header.count(twice[0])} times "
            "in the header row; rename or drop the extra ones"
        )
    index = {h: i for i, h in enumerate(header)}
    found = {
        c: [r[index[c]] if index[c] < len(r) else "" for r in records]
        for c in columns
        if c in index
    }
    return CsvColumns(header, found, len(records), encoding)


def _looks_numeric(name: str) -> bool:
    try:
        float(name)
    except ValueError:
        return False
    return True


def missing_column_error(owner: str, path: Path | str, column: str, read: CsvColumns):
    """The refusal of a requested ``column`` that the file's header lacks. The header's names
    are listed unless one looks like a number: then the first row may be a record, so only the
    counts are."""
    where = f"{owner} ({read.n_records:,} records): file {str(path)!r}: column {column!r}"
    numbers = sum(_looks_numeric(h) for h in read.header)
    if numbers:
        return UserFileError(
            f"{where} is not in its columns (its header row has {len(read.header)} names, "
            f"{numbers} of them numbers: is the header row missing?)"
        )
    return UserFileError(f"{where} is not in its columns {read.header}")


def read_json(path: Path | str, *, owner: str):
    """The parsed JSON file at ``path``, in any encoding :func:`decode` reads; a file that does
    not parse is refused by line and column."""
    path = Path(path)
    text, _ = _text(path, owner)
    if not text.strip():
        raise UserFileError(f"{_where(owner, path)} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:  # err.msg is the parser's fixed wording, no content
        raise UserFileError(
            f"{_where(owner, path)} is not valid JSON: {err.msg} at line {err.lineno}, "
            f"column {err.colno}"
        ) from None


def min_records(p: int) -> int:
    """The documented minimum record count for a regression on ``p`` covariates and an
    intercept (a proportion: p = 0): 10 per coefficient."""
    return MIN_RECORDS_PER_COEFFICIENT * (p + 1)


def warn_if_few_records(n: int, p: int, *, owner: str) -> str | None:
    """Log (and return) a warning when ``n`` records are fewer than :func:`min_records`."""
    need = min_records(p)
    if n >= need:
        return None
    what = f"a regression on {p} covariates and an intercept" if p else "a proportion"
    message = (
        f"{owner}: only {n:,} records for {what}; fewer than {need:,} "
        f"({MIN_RECORDS_PER_COEFFICIENT} per coefficient), so the noise of a useful epsilon "
        "swamps the data and the prior decides the posterior"
    )
    log.warning("%s", message)
    return message
