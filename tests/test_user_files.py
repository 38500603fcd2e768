"""Files a user gives (issue 48, item 5): read whatever the encoding, refuse a bad file with one
line that names the owner, the file and the column or record and shows no value of the file,
and warn below the documented minimum record count."""

from __future__ import annotations

import logging

import pytest

from dpinfer.own_data import DataSetError, load, spec_from_config
from dpinfer.user_files import (
    UserFileError,
    min_records,
    read_csv_columns,
    read_json,
    warn_if_few_records,
)

OWNER = "data set 'mine'"
SENTINEL = "987654.321"  # a cell value that no message may show


def _csv(tmp_path, data: bytes, name="d.csv"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _refused(path, columns=("y", "a"), reader=None) -> str:
    with pytest.raises(UserFileError) as err:
        if reader is None:
            read_csv_columns(path, columns, owner=OWNER)
        else:
            reader(path, owner=OWNER)
    msg = str(err.value)
    assert "\n" not in msg and SENTINEL not in msg and OWNER in msg, msg
    assert str(path) in msg, msg
    return msg


def test_a_latin1_or_cp1252_file_is_read_with_its_accented_names(tmp_path):
    path = _csv(tmp_path, "y,café,€\n1,2,3\n4,5,6\n".encode("cp1252"))
    read = read_csv_columns(path, ["y", "café", "€"], owner=OWNER)
    assert read.header == ["y", "café", "€"] and read.encoding == "cp1252"
    assert read.columns == {"y": ["1", "4"], "café": ["2", "5"], "€": ["3", "6"]}
    # 0x81 is not a cp1252 character: Latin-1 reads every byte
    path = _csv(tmp_path, b"y,r\x81\n1,2\n")
    read = read_csv_columns(path, ["y"], owner=OWNER)
    assert read.encoding == "latin-1" and read.header == ["y", "r\x81"]


def test_a_byte_order_mark_does_not_stick_to_the_first_column(tmp_path):
    path = _csv(tmp_path, b"\xef\xbb\xbf y ,a\n1,2\n")
    read = read_csv_columns(path, ["y", "a"], owner=OWNER)
    assert read.header == ["y", "a"] and read.columns["y"] == ["1"] and read.n_records == 1
    # a UTF-8 mark on a cp1252 file: the mark is dropped, not read as three cp1252 characters
    path = _csv(tmp_path, b"\xef\xbb\xbfy,caf\xe9\n1,2\n")
    assert read_csv_columns(path, ["y"], owner=OWNER).header == ["y", "café"]
    path = _csv(tmp_path, "y,a\n1,2\n".encode("utf-16"))  # UTF-16 with its mark
    assert read_csv_columns(path, ["y"], owner=OWNER).header == ["y", "a"]


def test_an_own_data_csv_in_latin1_with_a_bom_free_header_loads(tmp_path):
    rows = "\n".join(f"{i % 2 * 0.5},{i},{i % 3}" for i in range(40))
    _csv(tmp_path, ("y,âge,b\n" + rows + "\n").encode("latin-1"))
    entry = {
        "source": "d.csv",
        "response": "y",
        "covariates": ["âge", "b"],
        "bounds": {"y": [-1, 1], "âge": [0, 50], "b": [0, 2]},
    }
    data = load(spec_from_config("mine", entry), tmp_path)
    assert data.n == 40 and data.X[3].tolist() == [3.0, 0.0]


def test_a_header_name_used_twice_is_refused_naming_it(tmp_path):
    path = _csv(tmp_path, f"y,a,a\n{SENTINEL},1,2\n".encode())
    msg = _refused(path)
    assert "column 'a' is named 2 times" in msg
    # a file without its header row: the "names" are values, so none is shown
    path = _csv(tmp_path, f"{SENTINEL},{SENTINEL},1\n1,2,3\n".encode())
    assert "is the header row missing" in _refused(path)


def test_a_missing_column_names_it_and_shows_no_value(tmp_path):
    _csv(tmp_path, f"y,c\n{SENTINEL},1\n".encode())
    entry = {"source": "d.csv", "response": "y", "covariates": ["a"], "bounds": {}}
    entry["bounds"] = {"y": [0, 1], "a": [0, 1]}
    with pytest.raises(DataSetError) as err:
        load(spec_from_config("mine", entry), tmp_path)
    msg = str(err.value)
    assert "column 'a' is not in its columns ['y', 'c']" in msg and "1 records" in msg
    assert "d.csv" in msg and SENTINEL not in msg and "\n" not in msg
    # no header row: its first record is not listed as column names
    _csv(tmp_path, f"{SENTINEL},1\n2,3\n".encode())
    with pytest.raises(DataSetError) as err:
        load(spec_from_config("mine", entry), tmp_path)
    msg = str(err.value)
    assert "2 names, 2 of them numbers" in msg and SENTINEL not in msg, msg


@pytest.mark.parametrize(
    "data, words",
    [
        (None, "does not exist"),
        (b"", "is empty"),
        # a cell over the csv module's field limit (131,072 characters)
        (f"y,a\n1,2\n{SENTINEL * 20_000},1\n".encode(), "not a readable CSV file at line 3"),
    ],
)
def test_a_missing_empty_or_unreadable_csv_is_refused(tmp_path, data, words):
    path = tmp_path / "d.csv" if data is None else _csv(tmp_path, data)
    assert words in _refused(path)


def test_bad_json_is_refused_by_line_and_column(tmp_path):
    path = _csv(tmp_path, f'{{\n  "counts": [{SENTINEL}, 2,,\n]}}\n'.encode(), "r.json")
    msg = _refused(path, reader=read_json)
    assert "not valid JSON" in msg and "line 2, column" in msg
    assert "is empty" in _refused(_csv(tmp_path, b" \n", "e.json"), reader=read_json)
    assert "does not exist" in _refused(tmp_path / "none.json", reader=read_json)
    path = _csv(tmp_path, '\ufeff{"n": 3, "name": "Zürich"}'.encode(), "ok.json")
    assert read_json(path, owner=OWNER) == {"n": 3, "name": "Zürich"}


def test_a_regression_below_ten_records_per_coefficient_warns(tmp_path, caplog):
    assert min_records(2) == 30 and min_records(0) == 10
    _csv(tmp_path, b"y,a,b\n0.5,1,0\n0.1,2,1\n-0.2,3,0\n")
    entry = {
        "source": "d.csv",
        "response": "y",
        "covariates": ["a", "b"],
        "bounds": {"y": [-1, 1], "a": [0, 10], "b": [0, 1]},
    }
    with caplog.at_level(logging.WARNING, logger="dpinfer.user_files"):
        data = load(spec_from_config("mine", entry), tmp_path)
    assert data.n == 3
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "data set 'mine': only 3 records" in warned[0], warned
    assert "fewer than 30 (10 per coefficient)" in warned[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="dpinfer.user_files"):
        assert warn_if_few_records(30, 2, owner=OWNER) is None
    assert not caplog.records
