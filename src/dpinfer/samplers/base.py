"""The one record every sampler returns: :class:`Chain` (draws) with a typed :class:`Info`.

Every public ``run_*`` function of :mod:`dpinfer.samplers` takes ``burnin`` and ``keep`` (the
iterations discarded and kept, counted in stored draws), validates its input, allocates, calls
its numba kernel and returns a ``Chain`` whose ``draws`` hold every stored iteration, burn-in
included, so trace figures can show the burn-in and summaries use :attr:`Chain.kept`.
Times are CPU seconds (``time.process_time``) of the kernel call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..kernel_time import CpuTimer

__all__ = [
    "Info",
    "DPChainDetail",
    "RecordWiseDetail",
    "DirectGibbsDetail",
    "NigChainDetail",
    "ExpfamDetail",
    "Chain",
    "CpuTimer",
    "check_lengths",
    "timed",
]


@dataclass(frozen=True)
class Info:
    """What a sampler reports beside its draws.

    - ``cpu_seconds``: process time of the kernel (compiled code loaded before timing starts);
    - ``iterations``: iterations run, burn-in included, before thinning (``thin``);
    - ``acceptance``: mean acceptance rate of the sampler's Metropolis steps (None for Gibbs
      samplers without one);
    - ``clipped``: counts of clipping, projection or rejection-cap events, by name;
    - ``detail``: the typed diagnostics of the sampler's family, read by attribute (e.g.
      :class:`DPChainDetail` of every DP-MCMC sampler); None where a sampler reports nothing
      more.
    """

    cpu_seconds: float
    iterations: int
    thin: int = 1
    acceptance: float | None = None
    clipped: Mapping[str, int] = field(default_factory=dict)
    detail: object = None


@dataclass(frozen=True)
class DPChainDetail:
    """What a DP-MCMC chain (raisa2021's samplers) reports beside its acceptance.

    - ``llr_clip_fraction``: clipped log-likelihood ratios / records (or batch) / iterations;
    - ``decisions_changed``: accept/reject decisions clipping changed (DP penalty, DP HMC);
    - ``grad_clip_fraction``, ``gradient_evaluations``: clipped gradients / n / evaluations and
      the evaluations released (DP HMC);
    - ``batch_variance_rejections``: proposals rejected because the batch variance exceeded the
      Barker correction's (DP Barker);
    - ``trajectory``: (iterations, steps + 1, d) leapfrog positions, when recorded (DP HMC).
    """

    llr_clip_fraction: float
    decisions_changed: int = 0
    grad_clip_fraction: float = 0.0
    gradient_evaluations: int = 0
    batch_variance_rejections: int = 0
    trajectory: np.ndarray | None = None


@dataclass(frozen=True)
class RecordWiseDetail:
    """What a record-wise data-augmentation chain (ju2022's Algorithm 1) reports.

    - ``acceptance``: the fraction of records accepted in every sweep (burn-in included);
    - ``min_log_alpha``: the smallest log acceptance probability of any single proposal over all
      sweeps (Proposition 3.1: at least -epsilon under a correctly calibrated pure-DP mechanism);
    - ``noncentred_acceptance``: acceptance of the regression's non-centred moves (None without).
    """

    acceptance: np.ndarray
    min_log_alpha: float
    noncentred_acceptance: float | None = None


@dataclass(frozen=True)
class NigChainDetail:
    """What a noise-aware chain of the NIG regression (Gibbs-SS, MCMC-Ind; bernstein2020
    chapter 5, any number of covariates) reports beside its acceptance.

    - ``sign_flips``: accepted flips of the slope's sign (None: the move was off);
    - ``acceptance_theta``, ``acceptance_data_prior``: acceptance of MCMC-Ind's two non-centred
      moves (None for Gibbs-SS).
    """

    sign_flips: float | None = None
    acceptance_theta: float | None = None
    acceptance_data_prior: float | None = None


@dataclass(frozen=True)
class ExpfamDetail:
    """What a chapter-4 sampler reports beside its draws: the truncated exponential Gibbs chain's
    start ``lam0``, OPS's tempering exponent ``exponent`` (None where it does not apply)."""

    lam0: float | None = None
    exponent: float | None = None


@dataclass(frozen=True)
class DirectGibbsDetail:
    """What raim2021's Algorithm 2 (Gibbs with direct-sampler latents) reports.

    - ``proposals_per_y``, ``proposals_per_xi``: accept-reject proposals per latent draw;
    - ``cpu_seconds_y``, ``cpu_seconds_xi_x``, ``cpu_seconds_rest``: CPU seconds spent on each
      part of the sweeps, when the chain was ``timed`` (None otherwise).
    """

    proposals_per_y: float
    proposals_per_xi: float
    cpu_seconds_y: float | None = None
    cpu_seconds_xi_x: float | None = None
    cpu_seconds_rest: float | None = None


@dataclass(frozen=True)
class Chain:
    """Stored draws (rows = iterations / thin, burn-in first; columns = parameters)."""

    draws: np.ndarray
    burnin: int
    info: Info

    def __post_init__(self):
        if self.draws.ndim != 2:
            raise ValueError(f"draws must be (iterations, dim), got shape {self.draws.shape}")
        if not 0 <= self.burnin < self.draws.shape[0]:
            raise ValueError(
                f"burnin {self.burnin} must be below the {self.draws.shape[0]} stored draws"
            )

    @property
    def kept(self) -> np.ndarray:
        """Draws after burn-in."""
        return self.draws[self.burnin :]


def timed(kernel, *args):
    """(kernel(*args), its CPU seconds): one kernel call under :class:`CpuTimer`."""
    with CpuTimer() as timer:
        result = kernel(*args)
    return result, timer.seconds


def check_lengths(burnin: int, keep: int) -> tuple[int, int]:
    """Validate chain lengths; returns them as ints."""
    burnin, keep = int(burnin), int(keep)
    if burnin < 0 or keep < 1:
        raise ValueError(f"need burnin >= 0 and keep >= 1, got burnin={burnin}, keep={keep}")
    return burnin, keep
