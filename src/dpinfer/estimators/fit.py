"""The record every point estimator of :mod:`dpinfer.estimators` returns.

A fit is a point estimate, not a chain, so it is not the samplers' ``Chain``: it holds the flat
parameter vector in the model's layout (``PairwiseMRF.dim``), how the optimiser ended and what it
cost.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from ..kernel_time import CpuTimer

__all__ = ["Fit", "timed_fit"]


@dataclass(frozen=True)
class Fit:
    """A fitted flat parameter vector and how it was obtained.

    theta: flat parameters in the model layout (blocks of K*K edge entries, then node entries).
    iterations: optimiser iterations (MLE) or EM iterations (CGM-EM).
    converged: False when the optimiser stopped on its iteration cap or reported trouble.
    objective: finite objective trace; one entry (the final value) for MLE, one per EM iteration for
    CGM.
    seconds: CPU seconds (``time.process_time``) spent in the fit (set by :func:`timed_fit`).
    """

    theta: np.ndarray
    iterations: int
    converged: bool
    objective: np.ndarray
    seconds: float


def timed_fit(fit_function):
    """Run a point estimator inside one kernel timer (:mod:`dpinfer.kernel_time`, so its CPU
    counts as the job's kernel time even when it raises); its Fit's ``seconds`` are the timer's
    (a None, a setting the estimator cannot run, passes through)."""

    @functools.wraps(fit_function)
    def timed(*args, **kwargs) -> Fit | None:
        with CpuTimer() as timer:
            fit = fit_function(*args, **kwargs)
        return None if fit is None else dataclasses.replace(fit, seconds=timer.seconds)

    return timed
