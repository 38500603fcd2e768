"""Resuming a killed run with the same command (pure Python).

Snakemake locks the working directory while it runs and removes the lock when it stops; a run
killed with SIGKILL (or a lost login node) leaves the lock behind, and the next run stops with a
LockException. The Snakefile records the process id of the running Snakemake in
``.snakemake/dpinfer-run.pid`` (``onstart``) and removes it when the run ends. When the workflow
is parsed and that file names a process that no longer exists, the locks are stale: they are
removed and the same command resumes. A live run keeps its locks, so two runs in one directory
are still refused.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["PID_FILE", "record_run", "forget_run", "clear_stale_locks"]

PID_FILE = Path(".snakemake") / "dpinfer-run.pid"


def record_run(workdir=".") -> None:
    path = Path(workdir) / PID_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{os.getpid()}\n", encoding="utf-8")


def forget_run(workdir=".") -> None:
    (Path(workdir) / PID_FILE).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():  # a recycled pid of another program does not hold our locks
        return b"snakemake" in cmdline.read_bytes()
    return True


def clear_stale_locks(workdir=".") -> int | None:
    """Remove the locks of a recorded run whose process is gone; return its pid, else None."""
    path = Path(workdir) / PID_FILE
    try:
        pid = int(path.read_text(encoding="utf-8").split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return None
    if _alive(pid):
        return None
    for lock in (Path(workdir) / ".snakemake" / "locks").glob("*"):
        lock.unlink(missing_ok=True)
    path.unlink(missing_ok=True)
    return pid
