"""Process time of the compiled kernels: the one timer every sampler and estimator uses, and the
tally of the job it runs in (pure Python).

``with CpuTimer() as t: ...`` (or ``t = CpuTimer().start(); ...; t.stop()``) then ``t.seconds``:
process time of the block. Timers nest (a pooled run times its chains, CGM-EM times the MLE of
its M-step); only the outermost adds to the job's tally, so :func:`kernel_seconds` counts each
second once. A job's cost record (``dpinfer.pipeline.run_step``) reports it beside the job's
whole CPU and wall time, so the overhead of a job (start-up, imports, bookkeeping) is measured.
"""

from __future__ import annotations

import time

__all__ = ["CpuTimer", "kernel_seconds"]

_state = {"depth": 0, "total": 0.0}


class CpuTimer:
    """Process time of a block; the outermost timer of a process adds it to the job's tally."""

    def start(self) -> CpuTimer:
        self.seconds = 0.0
        self._t0 = time.process_time()
        _state["depth"] += 1
        return self

    def stop(self) -> float:
        self.seconds = time.process_time() - self._t0
        _state["depth"] -= 1
        if _state["depth"] == 0:
            _state["total"] += self.seconds
        return self.seconds

    def __enter__(self) -> CpuTimer:
        return self.start()

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False


def kernel_seconds() -> float:
    """Process time spent inside outermost timers so far in this process."""
    return _state["total"]
