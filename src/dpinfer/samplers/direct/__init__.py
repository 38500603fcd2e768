"""Direct samplers for weighted densities f(x) = w(x) g(x) / psi (raim2021).

The direct sampler (Walker et al. 2011) augments u | x ~ U(0, w(x)/c), c = sup w, so that

    p(u) = (c / psi) P(A_u),  A_u = {x : w(x) > u c},   x | u ~ g truncated to A_u

(slides "Direct sampling idea"). Modules, by concept:

- :mod:`.weights_bases`: the weights (lognormal, normal) and bases (Laplace, double geometric)
  in closed form, P(A_u), and :class:`Base.of` a mechanism record (the noise law is defined
  once, in :mod:`dpinfer.mechanisms`);
- :mod:`.knots`: the 2021 package's Stepdown: bisection for u_L and u_H, knots by equal steps
  or the Small Rectangles algorithm (``small_rects`` / ``equal_steps``);
- :mod:`.quantile_knots`: our fast knot rule for the Gibbs sampler (``quantile``): nested
  base intervals and the accept coin drawn in x;
- :mod:`.tail_factors`: the bases' interval masses and truncated draws in linear scale;
- :mod:`.envelope`: the customised direct sampler (CD): step function h*, exact accept-reject
  of u, x | u by the truncated inverse CDF; the public API;
- :mod:`.basic`: the basic direct sampler (BD), for comparison.

Kernel codes (``W_*``, ``B_*``) and :func:`target_draw` are exported for the Gibbs sampler
(:mod:`dpinfer.samplers.lognormal_gibbs`), which calls the CD sampler inside its own kernels.
"""

from .basic import basic_direct_sample
from .envelope import (
    DirectKernel,
    DirectSettings,
    Workspace,
    direct_sample,
    envelope_acceptance,
    psi_over_c,
    stepdown,
    target_draw,
)
from .knots import METHODS
from .quantile_knots import DEFAULT_LEVELS, DEFAULT_WEIGHT_SDS, base_quantile_points
from .weights_bases import (
    B_DGEOM,
    B_LAPLACE,
    BASES,
    W_LOGNORMAL,
    W_NORMAL,
    WEIGHTS,
    Base,
    Target,
    Weight,
    log_p_of_u,
)

__all__ = [
    "WEIGHTS",
    "BASES",
    "METHODS",
    "W_LOGNORMAL",
    "W_NORMAL",
    "B_LAPLACE",
    "B_DGEOM",
    "DEFAULT_LEVELS",
    "DEFAULT_WEIGHT_SDS",
    "Weight",
    "Base",
    "DirectSettings",
    "DirectKernel",
    "Workspace",
    "Target",
    "base_quantile_points",
    "log_p_of_u",
    "stepdown",
    "psi_over_c",
    "envelope_acceptance",
    "target_draw",
    "direct_sample",
    "basic_direct_sample",
]
