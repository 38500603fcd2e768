"""The slides' settings (raim2021) beside this run's, for the claims and the timing table.

Every scorecard row of :mod:`.paper` records the settings its reference value refers to, from
:func:`paper_settings` (by kind), :func:`study_settings` (the MSE study) and
:func:`~dpinfer.studies.scorecard.setting_in` (one panel's value); the ``timing`` table and the
timing claims use :func:`timing_settings`. A row at another setting is "not comparable".

The slides print the model (n, truth, prior), the chain lengths, the replicate count and the
(rho, lambda) grid, the traces' setting, the knot figure's and the code example's inputs and the
setting of the timed run. The bisection tolerances are the package's (its defaults, and the
re-run of FACTS.md 5), and the timed run's (rho, lambda) the one FACTS.md 6 re-ran.
"""

from __future__ import annotations

from ..scorecard import Setting, setting, setting_in
from .grid import parse_raim_setting

__all__ = [
    "SIMULATION",
    "PRIOR",
    "TRACES",
    "TIMING",
    "KNOTS_EXAMPLE",
    "CODE_EXAMPLE",
    "IN_SLIDES",
    "paper_settings",
    "study_settings",
    "timing_settings",
]

IN_SLIDES = "in the slides"

# ---------------------------------------------------------------------------- printed in the slides
# Slides "Simulation" and "Regression model application".
SIMULATION = {
    "n": 200,
    "beta": (5.0, -1.0),
    "sigma": 1.0,
    "rhos": (0.01, 0.1, 0.4),
    "lambdas": (0.05, 0.10, 0.20),
    "iterations": 2000,
    "burnin": 1000,
    "R": 1000,
    "S": 500,
}
PRIOR = {"sigma_beta": 10.0, "a_sigma": 2.0, "b_sigma": 10.0}
# Slides "Traceplots of sigma^2": rho = 0.01 with lambda = 0.2 and 0.05 (one data realisation).
TRACES = {"rho": 0.01, "lambdas": (0.2, 0.05)}
# Slides "Conclusions": the timed run is the regression example at rho = .01, lambda = .2
# (FACTS.md 6).
TIMING = {"n": 200, "iterations": 2000, "rho": 0.01, "lambda": 0.2}
# Slides "Knot selection example": LN(0, 1) weight, Laplace(0, 0.4) base, N + 1 = 6 knots; the
# package re-run that gives PACKAGE_KNOTS used tol = 1e-10 (FACTS.md 5).
KNOTS_EXAMPLE = {
    "z": (200.0, 2.0),
    "mu": 0.0,
    "sigma2": 1.0,
    "lambda": 0.4,
    "n_knots": 5,
    "tol": 1e-10,
}
# Slides "Code example": the package defaults N = 100, small_rects (R-level tol 1e-8, FACTS.md 2).
CODE_EXAMPLE = {
    "z": 100.0,
    "mu": 5.0,
    "sigma2": 9.0,
    "lambda": 0.2,
    "n_knots": 100,
    "method": "small_rects",
    "tol": 1e-8,
}

_FACTS_TOL = "in the package re-run (FACTS.md 5)"
# the slides time "our example"; its (rho, lambda) is the one FACTS.md 6 re-ran
_TIMED_SOURCE = "in the package re-run (FACTS.md 6)"


def _slides(name: str, paper, ours, **kw) -> Setting:
    """:func:`~dpinfer.studies.scorecard.setting` whose reference is in the slides by default."""
    return setting(name, paper, ours, **dict({"source": IN_SLIDES}, **kw))


def paper_settings(
    *, model: dict, iterations: int, burnin: int, knots: dict, step_function: dict
) -> dict[str, tuple[Setting, ...]]:
    """The slides' settings beside this run's, by what a claim refers to:

    - ``chain``: the model (n, truth, prior) and chain lengths of every Gibbs run (counts: at
      least the slides' 1,000 burn-in and 1,000 kept draws);
    - ``knots``: the inputs of the knot figure (weight, base, N, the re-run's tolerance); a row
      also names its z (``setting_in``);
    - ``target``: the code example's target (z, mu, sigma^2, lambda); ``ends`` adds the
      bisection tolerance (u_L, u_H); ``envelope`` adds N and the knot rule (a, acceptance).
    """
    chain = (
        _slides("records n", SIMULATION["n"], int(model["n"])),
        _slides("true beta", list(SIMULATION["beta"]), [float(b) for b in model["beta"]]),
        _slides("true sigma", SIMULATION["sigma"], float(model["sigma"])),
        _slides("prior sd of beta", PRIOR["sigma_beta"], float(model["sigma_beta"])),
        _slides(
            "IG prior (a, b) of sigma^2",
            [PRIOR["a_sigma"], PRIOR["b_sigma"]],
            [float(model["a_sigma"]), float(model["b_sigma"])],
        ),
        _slides("burn-in draws", SIMULATION["burnin"], int(burnin), at_least=True),
        _slides(
            "kept draws R",
            SIMULATION["iterations"] - SIMULATION["burnin"],
            int(iterations) - int(burnin),
            at_least=True,
        ),
    )
    k = KNOTS_EXAMPLE
    knot = (
        _slides("knot figure weight mu", k["mu"], float(knots["mu"])),
        _slides("knot figure weight sigma^2", k["sigma2"], float(knots["sigma2"])),
        _slides("knot figure Laplace lambda", k["lambda"], float(knots["lambda"])),
        _slides("knot figure N", k["n_knots"], int(knots["n_knots"])),
        _slides("knot figure bisection tol", k["tol"], float(knots["tol"]), source=_FACTS_TOL),
    )
    c, sf = CODE_EXAMPLE, step_function
    target = (
        _slides("code example z", c["z"], float(sf["z"])),
        _slides("code example mu", c["mu"], float(sf["mu"])),
        _slides("code example sigma^2", c["sigma2"], float(sf["sigma2"])),
        _slides("code example lambda", c["lambda"], float(sf["lambda"])),
    )
    tol = _slides(
        "code example bisection tol",
        c["tol"],
        float(sf["tol"]),
        source="in the package defaults (FACTS.md 2)",
    )
    envelope = (
        _slides(
            "code example N",
            c["n_knots"],
            int(sf["n_knots"]),
            source="in the slides (package default)",
        ),
        _slides(
            "code example knot rule",
            c["method"],
            str(sf["method"]),
            source="in the slides (package default)",
        ),
        tol,
    )
    return {
        "chain": chain,
        "knots": knot,
        "target": target,
        "ends": target + (tol,),
        "envelope": target + envelope,
    }


def timing_settings(t: dict) -> tuple[Setting, ...]:
    """What the slides' seconds scale to (the timed run's n, iterations and noise), beside the
    timed run's own record (``timing.json``). The claims and the timing table use this one
    function: the slides' seconds are compared and printed only at their setting."""
    return (
        _slides("records n", TIMING["n"], int(t["n"])),
        _slides("iterations", TIMING["iterations"], int(t["iterations"])),
        _slides("rho", TIMING["rho"], float(t["rho"]), source=_TIMED_SOURCE),
        _slides("lambda", TIMING["lambda"], float(t["lambda"]), source=_TIMED_SOURCE),
    )


def study_settings(mse, at: dict) -> dict:
    """What the MSE study's claims refer to: the chains (``at["chain"]``), the S = 500
    replicates of each setting (at least), and by kind: ``panel(rho, lambda)`` (one of the
    slides' nine panels) and ``grid`` (the slides' rho and lambda grids, for statements over
    every rho or lambda)."""
    settings = [str(s) for s in mse["settings"]]
    S = min(int(mse[f"{name}/mse_noisy"].size) for name in settings)
    common = at["chain"] + (_slides("replicates S per setting", SIMULATION["S"], S, at_least=True),)
    rhos = sorted({parse_raim_setting(n)[0] for n in settings})
    lams = sorted({parse_raim_setting(n)[1] for n in settings})
    grid = (
        _slides("rho grid", sorted(SIMULATION["rhos"]), rhos),
        _slides("lambda grid", sorted(SIMULATION["lambdas"]), lams),
    )
    return {
        "common": common,
        "grid": common + grid,
        "panel": lambda rho, lam: (
            common
            + (
                setting_in("rho of the panel", SIMULATION["rhos"], rho, source=IN_SLIDES),
                setting_in("lambda of the panel", SIMULATION["lambdas"], lam, source=IN_SLIDES),
            )
        ),
    }
