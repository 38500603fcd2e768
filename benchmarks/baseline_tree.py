"""The package's sources at a git revision, extracted into a temporary directory (removed at
exit): the baseline that a benchmark times beside the current code."""

from __future__ import annotations

import atexit
import io
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def extract_src(ref: str, prefix: str) -> Path:
    """``src/`` of the repository at ``ref`` (it holds ``dpinfer``) in a new temporary directory."""
    blob = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src/dpinfer"], check=True, capture_output=True
    ).stdout
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(tmp, filter="data")
    return tmp / "src"
