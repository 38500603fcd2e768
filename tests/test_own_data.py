"""A user's data set (issue 34): every bad input is refused before any sampler runs, naming the
data set, the column and the record count and never a value; values outside the bounds are
clamped and their share reported."""

from __future__ import annotations

import numpy as np
import pytest

from dpinfer.own_data import DataSetError, load, spec_from_config

SENTINEL = "987654.321"


def _entry(**kw):
    entry = dict(
        source="d.csv",
        response="y",
        covariates=["a", "b"],
        bounds={"y": [-1, 1], "a": [0, 10], "b": [0, 1]},
    )
    entry.update(kw)
    return entry


def _write(tmp_path, rows, header="y,a,b"):
    (tmp_path / "d.csv").write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")


def _load(tmp_path, **kw):
    return load(spec_from_config("mine", _entry(**kw)), tmp_path)


def _refused(tmp_path, match, **kw):
    with pytest.raises(DataSetError, match=match) as err:
        _load(tmp_path, **kw)
    assert SENTINEL not in str(err.value) and "mine" in str(err.value)
    return str(err.value)


def test_a_csv_is_read_clamped_and_the_share_clamped_is_reported(tmp_path):
    _write(tmp_path, ["0.5,1,0", "2.0,3,1", "-0.25,12,0.5", "-3,-1,1"])
    d = _load(tmp_path)
    assert d.n == 4 and d.X.shape == (4, 2)
    np.testing.assert_array_equal(d.y, [0.5, 1.0, -0.25, -1.0])
    np.testing.assert_array_equal(d.X[:, 0], [1, 3, 10, 0])
    assert d.clamped == {"y": 0.5, "a": 0.5, "b": 0.0}


def test_bounds_are_required_for_every_column_used(tmp_path):
    with pytest.raises(DataSetError, match=r"bounds\.b is missing"):
        spec_from_config("mine", _entry(bounds={"y": [-1, 1], "a": [0, 10]}))
    with pytest.raises(DataSetError, match=r"bounds\.a must be finite with lower < upper"):
        spec_from_config("mine", _entry(bounds={"y": [-1, 1], "a": [3, 3], "b": [0, 1]}))
    with pytest.raises(DataSetError, match="named twice"):
        spec_from_config("mine", _entry(covariates=["a", "y"]))


def test_a_missing_file_or_column_is_refused(tmp_path):
    _refused(tmp_path, "does not exist")
    _write(tmp_path, ["0.5,1,0", "0.1,2,1", "0.2,3,0"], header="y,a,c")
    msg = _refused(tmp_path, r"column 'b' is not in its columns")
    assert "3 records" in msg


@pytest.mark.parametrize(
    "cell, what",
    [
        ("x" + SENTINEL, "non-numeric or empty"),
        ("", "non-numeric or empty"),
        ("nan", "NaN"),
        ("inf", "NaN or infinite"),
    ],
)
def test_a_non_numeric_nan_or_infinite_entry_is_refused_by_record_not_value(tmp_path, cell, what):
    _write(tmp_path, ["0.5,1,0", f"0.1,{cell},1", "0.2,3,0", SENTINEL + ",4,1"])
    msg = _refused(tmp_path, what + ".*first at record 2")
    assert "column 'a'" in msg and "4 records" in msg


def test_too_few_records_and_a_constant_covariate_are_refused(tmp_path):
    _write(tmp_path, ["0.5,1,0", "0.1,2,1"])
    _refused(tmp_path, "needs more than 2 records")
    # b is 1 after clamping in every record
    _write(tmp_path, ["0.5,1,1", "0.1,2,3", "0.2,3,1", "0.3,4," + SENTINEL])
    _refused(tmp_path, "covariate 'b' is constant after clamping")


def test_a_proportion_is_a_0_1_column_without_covariates(tmp_path):
    _write(tmp_path, ["1", "0", "1"], header="y")
    d = _load(tmp_path, covariates=[], bounds={"y": [0, 1]})
    assert d.X.shape == (3, 0) and d.y.tolist() == [1.0, 0.0, 1.0]
    _write(tmp_path, ["1", "0.5", "1"], header="y")
    _refused(tmp_path, "must be 0 or 1; 1 are not", covariates=[], bounds={"y": [0, 1]})


def test_a_statsmodels_data_set_is_read_by_name(tmp_path):
    bounds = {"rate_marriage": [1, 5], "age": [17.5, 42], "educ": [9, 20]}
    d = _load(
        tmp_path,
        source="statsmodels:fair",
        response="rate_marriage",
        covariates=["age", "educ"],
        bounds=bounds,
    )
    assert d.n == 6366 and d.X.shape == (6366, 2) and d.clamped["age"] == 0.0
    _refused(tmp_path, "statsmodels ships no data set 'no_such'", source="statsmodels:no_such")
