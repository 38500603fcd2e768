"""The package is byte-compiled once per run where Python does not write .pyc files itself."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import dpinfer
from dpinfer.bytecode import compile_package

PACKAGE = Path(dpinfer.__file__).parent


def test_every_module_gets_its_pyc_when_python_will_not_write_them(monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert compile_package()
    missing = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if not Path(importlib.util.cache_from_source(str(p))).is_file()
    ]
    assert not missing, missing


def test_nothing_is_done_where_python_writes_them_itself(monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    assert not compile_package()
