import numpy as np
import pytest

from dpinfer import io


def test_atomic_write_keeps_old_file_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    io.write_text(target, "finished work")
    with pytest.raises(RuntimeError):
        with io.atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "finished work"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_tables_refuse_nan_and_are_deterministic(tmp_path):
    rows = [{"a": 1, "b": 0.123456}]
    io.write_table(tmp_path / "t.csv", tmp_path / "t.md", rows, ["a", "b"], title="T")
    first = (tmp_path / "t.csv").read_bytes()
    io.write_table(tmp_path / "t.csv", tmp_path / "t.md", rows, ["a", "b"], title="T")
    assert (tmp_path / "t.csv").read_bytes() == first == b"a,b\n1,0.123\n"
    with pytest.raises(ValueError, match="non-finite"):
        io.write_table(tmp_path / "x.csv", tmp_path / "x.md", [{"a": np.nan}], ["a"])


def test_npz_roundtrip_without_pickle(tmp_path):
    io.save_npz(tmp_path / "a.npz", x=np.arange(3))
    assert io.load_npz(tmp_path / "a.npz")["x"].tolist() == [0, 1, 2]
    with pytest.raises(TypeError):
        io.save_npz(tmp_path / "b.npz", x=np.array([{}], dtype=object))


def test_outputs_get_the_users_normal_permissions(tmp_path):
    """Atomic writes must not leave results at mkstemp's 0600: other readers of a shared
    cluster file system get what the user's umask gives an ordinary new file."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        path = tmp_path / "table.md"
        io.write_text(path, "x\n")
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        os.umask(0o077)
        io.write_text(path, "y\n")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_small_values_keep_their_magnitude_and_sign():
    assert io.format_value(1e-6, 4) == "1.000e-06"
    assert io.format_value(-2.5e-5, 4) == "-2.500e-05"
    assert io.format_value(-0.0, 4) == "0.0000"
    assert io.format_value(0.0, 3) == "0.000"
    assert io.format_value(0.00051, 3) == "0.001"
    assert io.format_value(12.3456, 2) == "12.35"
