"""Byte-compile the package once per run, so that its jobs do not each compile its sources.

Every job is a fresh interpreter that imports dpinfer. Python keeps compiled modules in
``__pycache__``, except where ``PYTHONDONTWRITEBYTECODE`` is set (some CI machines and
containers): there every job compiled every dpinfer module it imported from source, about
0.15-0.2 s of CPU per job (measured on a chain job's imports). That variable stops Python from
writing the files, not from reading them, so writing them once before the jobs start restores
the cache. Nothing happens where Python writes them itself.
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

__all__ = ["compile_package"]


def compile_package() -> bool:
    """Write the package's missing or stale ``.pyc`` files when Python will not; returns whether
    it tried. A package directory that is not writable is left as it is (quietly)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return False
    compileall.compile_dir(Path(__file__).parent, quiet=2)
    return True
