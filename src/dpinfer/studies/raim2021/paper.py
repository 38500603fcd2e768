"""raim2021: the numbers the slides print for our targets, the author's package reference
values (FACTS.md), and the checkable claims (rule ``raim2021_claims``).

The slides print few numbers: the settings (settings.yaml), the code example's 20 draws and the
timing of one Gibbs run. The knot figure, the error bound and the step function are drawn without
values; their reference values come from the author's package DirectSampling v0.1.0 re-run on the
slides' inputs (``reference/raim2021/FACTS.md``). The MSE densities and the traces are figures
only: their claims are what the panels show, turned into computed checks whose rule is written in
each claim's statement.

Every claim carries the settings its reference value refers to (settings.yaml): the slides'
model (n, truth, prior), chain lengths, replicate count and (rho, lambda) grid, the knot figure's
and the code example's inputs, the setting of the timed run. A run at other settings (the smoke
scale, an edited config) gets "not comparable" rows, never a verdict against the slides' values.

The slides' theorems (P(A_u) is non-increasing in u, h* >= P(A_u), TV(h, p) <= (c/psi) sum |R_j|)
hold for any inputs, so a row on them could only fail through a bug: they are tests
(``tests/test_raim2021.py``), not rows. The share of replicates the diagnostics flag carries its
95% Wilson interval.
"""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import mc_standard_error
from ...grid import fmt_eps
from ...io import load_npz, read_json
from ..companions import from_chains, second_verdicts
from ..document_settings import Run, document
from ..scorecard import Claim, health_claim, write_claims
from .grid import parse_raim_setting, raim_setting

__all__ = [
    "PAPER_SECONDS",
    "PEER_SECONDS",
    "PACKAGE_KNOTS",
    "PACKAGE_EXAMPLE",
    "knots_match",
    "claims",
]

SLIDES = document("raim2021")  # the slides' settings (settings.yaml)

# Slides "Conclusions": one Gibbs run (rho = .01, lambda = .2) on an i7-2600 (R + C++ v0.1.0).
PAPER_SECONDS = {"y": 70.29, "xi_x": 57.67, "total": 129.29}
# FACTS.md Sec. 6: the same package re-run on a shared 2-vCPU machine (rho=.01, lambda=.2).
PEER_SECONDS = {"y": 75.7, "xi_x": 62.9, "total": 142.3}
# Slides "Code example": the 20 draws it prints
CODE_EXAMPLE_DRAWS = (
    -0.11185683,
    0.03854990,
    -0.01441820,
    -0.22186401,
    -0.10575271,
    -0.06173714,
    0.17074268,
    -0.06516397,
    0.11328199,
    0.11903198,
    -0.05490415,
    0.13957360,
    0.02124918,
    0.05218875,
    0.06050365,
    -0.07118187,
    -0.27217647,
    -0.27952874,
    0.13179049,
    0.75207048,
)

# FACTS.md Sec. 5: knots (u_L..u_H) and P(A_u) of the knot figure by the v0.1.0 R Stepdown,
# tol = 1e-10, as printed there (4-5 digits; 2.9e-261 and the small P's with 2).
PACKAGE_KNOTS = {
    (200.0, "equal_steps"): (
        (1.5524e-9, 2.0263e-9, 2.5002e-9, 2.9741e-9, 3.4481e-9, 3.9220e-9),
        (1, 1, 0.05649, 7.2e-8, 8.8e-13, 0),
    ),
    (200.0, "small_rects"): (
        (1.5524e-9, 2.1448e-9, 2.2929e-9, 2.4410e-9, 2.7372e-9, 3.9220e-9),
        (1, 0.99998, 0.99548, 0.37756, 4.57e-5, 0),
    ),
    (2.0, "equal_steps"): (
        (2.9e-261, 0.2, 0.4, 0.6, 0.8, 1.0),
        (0.99663, 0.70214, 0.11430, 0.03746, 0.01486, 2.9e-6),
    ),
    (2.0, "small_rects"): (
        (2.9e-261, 0.125, 0.25, 0.375, 0.5, 1.0),
        (0.99663, 0.93301, 0.43143, 0.13644, 0.06221, 2.9e-6),
    ),
}
# FACTS.md Sec. 2.3 and 2.7: the code example with N = 100, tol = 1e-8.
PACKAGE_EXAMPLE = {"u_L": 0.0152695, "u_H": 0.0175766, "psi_c": 0.0163452, "a": 0.0163465}
# The code example's rows: the PACKAGE_EXAMPLE key (or the acceptance (psi/c)/a), what it is, the
# relative difference allowed and the settings group its value refers to.
EXAMPLE_ROWS = (
    ("u_L", "u_L, the smallest u with P(A_u) < P(A_0) (FACTS.md 2.3, tol 1e-8)", "1e-5", "ends"),
    (
        "u_H",
        "u_H, the smallest u with P(A_u) = 0 in double precision (FACTS.md 2.3)",
        "1e-5",
        "ends",
    ),
    ("psi_c", "psi/c = int_0^1 P(A_u) du (FACTS.md 2.7; ours by quadrature)", "2e-5", "target"),
    ("a", "a = int h*(u) du of the N = 100 step function (FACTS.md 2.7)", "1e-5", "envelope"),
    (
        "acceptance",
        "acceptance probability (psi/c)/a of the accept step at N = 100 (slides 'Accept-"
        "reject algorithm'; FACTS.md 2.7)",
        "2e-5",
        "envelope",
    ),
)

# headings of the raim2021 section of docs/deviations.md that explain a difference
DEV_TIMING = "gibbs-timing-our-sampler-and-machine-not-the-i7-2600"
DEV_FIGURES = "mse-and-trace-claims-read-off-the-figures"
DEV_DESIGN = "design-fixed-per-setting"
DEV_CONVERGENCE = "convergence-diagnostics-of-the-raim2021-chains"
DEV_CONVERGENCE_FREE = "algorithm-4-crosses-r-hat-101-by-chance"


def knots_match(u, p, ref_u, ref_p) -> bool:
    """Our knots against the package's, to the printed digits: u relative 1e-4 (2e-2 for the
    2-digit 2.9e-261); P relative 5e-4 above 1e-3, otherwise relative 0.1 (+1e-15: the package's
    plain CDF difference gives exactly 0 where our tail formula gives 5.6e-17)."""
    u, p = np.asarray(u, float), np.asarray(p, float)
    ref_u, ref_p = np.asarray(ref_u, float), np.asarray(ref_p, float)
    if u.shape != ref_u.shape:
        return False
    rtol = np.where(ref_u < 1e-100, 2e-2, 1e-4)
    big = ref_p > 1e-3
    return bool(
        np.all(np.abs(u / ref_u - 1) < rtol)
        and np.all(np.abs(p[big] / ref_p[big] - 1) < 5e-4)
        and np.all(np.abs(p[~big] - ref_p[~big]) <= 0.1 * ref_p[~big] + 1e-15)
    )


def _seq(values) -> str:
    return ", ".join(f"{v:.5g}" for v in values)


def _knot_claims(d, at: Run) -> list[Claim]:
    out = []
    for (z, method), (ref_u, ref_p) in PACKAGE_KNOTS.items():
        p = f"z{fmt_eps(z)}_{method}"
        statement = (
            f"knots figure, z = {fmt_eps(z)}, {method.replace('_', ' ')}: knots u_L..u_H "
            "and P(A_u) equal the author's package v0.1.0 (FACTS.md 5) to its printed "
            "digits (u rel. 1e-4; P rel. 5e-4 above 1e-3, rel. 0.1 below)"
        )
        ours, holds, where = "not run (z not in this run's knots.z)", None, ()
        if f"{p}_knot_log_u" in d:
            u, hp = np.exp(d[f"{p}_knot_log_u"]), np.exp(d[f"{p}_knot_log_p"])
            ours, holds = f"u: {_seq(u)}; P: {_seq(hp)}", knots_match(u, hp, ref_u, ref_p)
            where = at("knots")
        paper = f"u: {_seq(ref_u)}; P: {_seq(ref_p)}"
        out.append(Claim("knots", statement, paper, ours, "", holds, settings=where))
    return out


def _envelope_claims(d, at: Run) -> list[Claim]:
    """Small Rectangles against equal steps on the knot figure's examples (at its inputs). The
    slides' theorems on every envelope are tests, not rows (module docstring)."""
    out = []
    for z in d["z_values"]:
        area = {}
        for method in ("equal_steps", "small_rects"):
            p = f"z{fmt_eps(z)}_{method}"
            ku, kh = np.exp(d[f"{p}_knot_log_u"]), np.exp(d[f"{p}_knot_log_p"])
            area[method] = float(np.sum(np.diff(ku) * -np.diff(kh)))
        out.append(
            Claim(
                "knots",
                f"z = {fmt_eps(z)}: Small Rectangles' knots give a smaller "
                "error bound sum_j |R_j| than equal steps with the same N (slides "
                "'Knot selection': knots chosen to reduce the largest |R_j|)",
                "small rectangles < equal steps",
                f"{area['small_rects']:.4g} vs {area['equal_steps']:.4g}",
                "",
                area["small_rects"] < area["equal_steps"],
                settings=at("knots", "knots_z", knots_z=z),
            )
        )
    return out


def _example_claims(d, at: Run) -> list[Claim]:
    from scipy.stats import ks_2samp

    ku = np.exp(d["example_knot_log_u"])
    a, psi_c = math.exp(float(d["example_log_a"])), float(d["example_psi_c"])
    ours = {"u_L": ku[0], "u_H": ku[-1], "psi_c": psi_c, "a": a, "acceptance": psi_c / a}
    ref = {**PACKAGE_EXAMPLE, "acceptance": PACKAGE_EXAMPLE["psi_c"] / PACKAGE_EXAMPLE["a"]}
    out = [
        Claim(
            "step_function",
            f"code example: {s}: relative difference < {tol}",
            f"{ref[key]:.6g}",
            f"{ours[key]:.6g}",
            "",
            abs(ours[key] / ref[key] - 1) < float(tol),
            settings=at(group),
        )
        for key, s, tol, group in EXAMPLE_ROWS
    ]
    draws = d["example_draws"]
    ks = ks_2samp(CODE_EXAMPLE_DRAWS, draws)
    crit = 1.358 * math.sqrt(1 / len(CODE_EXAMPLE_DRAWS) + 1 / draws.size)
    out.append(
        Claim(
            "step_function",
            "code example: the slides' 20 printed draws and "
            f"{draws.size} of our exact CD draws come from the same law (two-sample KS "
            "statistic below its 5% critical value)",
            _seq(CODE_EXAMPLE_DRAWS[:4]) + ", ...",
            f"KS {ks.statistic:.3f} (p = {ks.pvalue:.2f})",
            f"5% critical value {crit:.3f}",
            ks.statistic < crit,
            settings=at("target"),
        )
    )
    return out


def _trace_claims(chains, burnin: int, at: Run) -> list[Claim]:
    """The traces figure: one data realisation at rho = 0.01, a panel per lambda (0.2, 0.05)."""

    def mcse(kept) -> float:
        return float(mc_standard_error(kept[:, None])[0])

    free = chains["free"][burnin:, 2]
    rho = float(chains["rho"])
    series = [
        (
            f"Algorithm 2, rho = {fmt_eps(rho)}, lambda = {fmt_eps(lam)}",
            chains[f"noisy_{fmt_eps(lam)}"][burnin:, 2],
            at("traces", traces_rho=rho, traces_lambda=lam),
        )
        for lam in (float(v) for v in chains["lambdas"])
    ]
    out = []
    for name, kept, where in series + [("Algorithm 4 (noise-free)", free, at("chain"))]:
        m, sd = float(kept.mean()), float(kept.std(ddof=1))
        out.append(
            Claim(
                "traces",
                f"{name}: after burn-in the sigma^2 draws centre near the true "
                "value 1: |posterior mean - 1| <= 3 posterior sd",
                "traces around the red line sigma^2 = 1",
                f"mean {m:.3f}, sd {sd:.3f}",
                f"MCSE {mcse(kept):.3f}",
                abs(m - 1.0) <= 3.0 * sd,
                settings=where,
            )
        )
    sd_free = float(free.std(ddof=1))
    for name, kept, where in series:
        sd = float(kept.std(ddof=1))
        # MC error of a posterior sd: sd / sqrt(2 ESS), from the chain's MCSE of its mean
        err = math.hypot(*(mcse(k) / math.sqrt(2.0) for k in (kept, free)))
        out.append(
            Claim(
                "traces",
                f"{name}: the noisy chain (black) spreads wider than the "
                "noise-free one (grey): posterior sd of sigma^2 above Algorithm 4's",
                "black traces wider than grey",
                f"sd {sd:.3f} vs {sd_free:.3f}",
                f"{err:.3f}",
                sd > sd_free,
                settings=where,
            )
        )
    return out


def _names(mse) -> list[str]:
    """The setting names of an MSE summary (or of :func:`_subset`)."""
    return [str(s) for s in mse["settings"]]


def _se(x) -> float:
    """Monte Carlo error of the mean of the replicates' values ``x``."""
    return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.inf


def _mse_claims(mse, at: Run) -> list[Claim]:
    grid, out = {}, []  # setting -> Algorithm 2's AMSE and its MC error
    for name in _names(mse):
        noisy, free = mse[f"{name}/mse_noisy"], mse[f"{name}/mse_free"]
        a2, a4, se = float(noisy.mean()), float(free.mean()), _se(noisy - free)
        grid[name] = (a2, _se(noisy))
        rho, lam = parse_raim_setting(name)
        out.append(
            Claim(
                "mse_densities",
                f"rho = {fmt_eps(rho)}, lambda = {fmt_eps(lam)}: "
                "Algorithm 2's MSE exceeds Algorithm 4's: mean MSE^(s) difference over "
                f"the S = {noisy.size} replicates above 2 MC errors (paired)",
                "solid density (Alg 2) right of dashed (Alg 4)",
                f"AMSE {a2:.4g} vs {a4:.4g}",
                f"{se:.3g}",
                a2 - a4 > 2.0 * se,
                settings=at("panel", panel_rho=rho, panel_lambda=lam),
                headline=(rho, lam) == (0.01, 0.2),
            )
        )
    rhos, lams = at.ours["rhos"], at.ours["lambdas"]
    # (what grows, outer loop, inner values from less to more noise, setting name, need a
    # significant rise (lambda: the panels' clear shift) or only no significant fall (rho))
    for label, outer, inner, key, strict in (
        ("lambda rises, at every rho", rhos, lams, lambda o, i: raim_setting(o, i), True),
        ("rho falls, at every lambda", lams, rhos[::-1], lambda o, i: raim_setting(i, o), False),
    ):
        rule = (
            "every step of the grid raises AMSE by more than 2 MC errors"
            if strict
            else "no step of the grid lowers AMSE by more than 2 MC errors"
        )
        statement = f"Algorithm 2's average MSE grows as {label} (read off the panels): {rule}"
        ours, err, holds = "not run (one value in this run's grid)", "", None
        deviation = DEV_FIGURES
        if len(inner) >= 2:
            steps = []
            for o in outer:
                names = [key(o, i) for i in inner if key(o, i) in grid]
                for lo, hi in zip(names[:-1], names[1:]):
                    steps.append((grid[hi][0] - grid[lo][0], math.hypot(grid[hi][1], grid[lo][1])))
            step, step_err = min(
                steps, key=lambda se: se[0] - 2.0 * se[1] if strict else se[0] + 2.0 * se[1]
            )
            ours, err = f"least favourable step {step:+.4g}", f"{step_err:.3g}"
            deviation = DEV_DESIGN
            holds = all((d - 2.0 * e > 0) if strict else (d + 2.0 * e >= 0) for d, e in steps)
        out.append(
            Claim(
                "mse_densities",
                statement,
                "more noise, larger MSE",
                ours,
                err,
                holds,
                deviation,
                settings=at("grid"),
            )
        )
    return out


HEALTH_ROWS = {
    "noisy": ("Algorithm 2 (noisy data)", DEV_CONVERGENCE),
    "free": ("Algorithm 4 (noise-free)", DEV_CONVERGENCE_FREE),
}


def _health_claim(mse, health: dict, at: Run, chain: str) -> Claim:
    """Every replicate's chain of Algorithm 2 (``chain`` "noisy") or of Algorithm 4 ("free")
    passes split-chain R-hat and bulk ESS (the slides report no diagnostics): at the slides'
    chain lengths, replicates and grid."""
    label, deviation = HEALTH_ROWS[chain]
    limit = f"R-hat <= {health['max_rhat']}, bulk ESS >= {health['min_ess']:g}"
    return health_claim(
        "mse_densities",
        f"{label}: every replicate's chain passes the convergence diagnostics ({limit})",
        "(the slides report no diagnostics)",
        [(s, mse[f"{s}/rhat_{chain}"], mse[f"{s}/ess_{chain}"]) for s in _names(mse)],
        health,
        deviation,
        at("grid"),
    )


def _timing_claims(t) -> list[Claim]:
    """The slides' seconds for one Gibbs run (n = 200, 2000 iterations, rho = .01, lambda = .2):
    judged only when our timed run is at that setting (its record's n, iterations, rho and
    lambda: settings.yaml, group ``timing``; the timing table uses the same)."""
    at = SLIDES.at(t)("timing")
    ctx = f"(ours: n = {t['n']}, {t['iterations']} iterations, CPU seconds)"
    y, xi_x = float(t["y"]), float(t["xi_x"])
    share = (y + xi_x) / max(float(t["total"]), 1e-12)
    paper_share = (PAPER_SECONDS["y"] + PAPER_SECONDS["xi_x"]) / PAPER_SECONDS["total"]
    steps = {"total": "total", "y": "drawing the y's", "xi_x": "drawing the xi^x's"}
    return [
        *(
            Claim(
                "timing",
                f"seconds for one Gibbs run of Algorithm 2, {label}, rho = .01, lambda = .2, "
                f"n = 200, 2000 iterations: ours within 10% of the slides' {ctx}",
                f"{PAPER_SECONDS[key]:g}",
                f"{float(t[key]):.3g}",
                "",
                abs(float(t[key]) / PAPER_SECONDS[key] - 1) <= 0.1,
                DEV_TIMING,
                settings=at,
                headline=key == "total",
            )
            for key, label in steps.items()
        ),
        Claim(
            "timing",
            f"the direct-sampler steps dominate a Gibbs run: (y's + xi^x's) / total >= 0.9 {ctx}",
            f"{paper_share:.3f}",
            f"{share:.3f}",
            "",
            share >= 0.9,
            # our direct steps are so fast that the rest of a sweep is near a tenth of it
            "" if share >= 0.9 else DEV_TIMING,
            settings=at,
        ),
        Claim(
            "timing",
            f"drawing the y's takes longer than drawing the xi^x's {ctx}",
            f"{PAPER_SECONDS['y']:g} > {PAPER_SECONDS['xi_x']:g}",
            f"{y:.3g} vs {xi_x:.3g}",
            "",
            y > xi_x,
            settings=at,
        ),
    ]


def _subset(mse, companion, noisy) -> dict:
    """The MSE summary on the companion's replicates (the first S' of every setting): the
    noise-free chains' values and, from ``noisy`` (the companion or the original summary),
    Algorithm 2's."""
    out = {"settings": mse["settings"]}
    for name in _names(mse):
        S = companion[f"{name}/mse_noisy"].size
        for k in ("mse", "rhat", "ess"):
            out[f"{name}/{k}_free"] = mse[f"{name}/{k}_free"][:S]
            out[f"{name}/{k}_noisy"] = noisy[f"{name}/{k}_noisy"][:S]
    return out


def _alg2_claims(mse, health: dict, at: Run) -> list[Claim]:
    """The claims computed from Algorithm 2's chains: the MSE rows and its diagnostics row."""
    return from_chains(_mse_claims(mse, at) + [_health_claim(mse, health, at, "noisy")])


def _second_verdicts(rows, mse, companion, converged: dict, at: Run) -> list[Claim]:
    """``rows`` (:func:`_alg2_claims` of the whole run) with the companion's verdicts; the note
    names the subset and what the slides-length chains give on it. Where their verdict on the
    subset is not their verdict on the whole run, the subset cannot judge the row: "not
    comparable" (:func:`~dpinfer.studies.companions.companion_on_subset`)."""
    limits = {k: converged["health"][k] for k in ("max_rhat", "min_ess")}
    twins = _alg2_claims(_subset(mse, companion, companion), limits, at)
    same = _alg2_claims(_subset(mse, companion, mse), limits, at)
    S = min(companion[f"{s}/mse_noisy"].size for s in _names(mse))
    subset = (
        f"{converged['chains']} chains of {converged['burnin']} + {converged['keep']} draws on "
        f"the first {S} replicates of every setting (converged.replicates)"
    )
    return second_verdicts(
        rows,
        twins,
        subset,
        on_subset=same,
        subset=f"the first {S} replicates",
        same="the slides-length chains on the same replicates",
    )


def claims(input, output, health: dict, converged: dict, **section) -> None:
    """Rule step: every checkable statement of the slides (and the package reference values)
    against our envelopes, MSE summary, trace chains and timed run, each with the settings its
    reference value refers to: read from ``section`` (this run's ``burnin``, ``iterations``,
    ``model``, ``knots`` and ``step_function``) at their config paths; the timed run's setting
    is in its own record."""
    env, mse = load_npz(input.envelopes), load_npz(input.mse)
    names = _names(mse)
    ours = SLIDES.config_values(section)
    ours["ig_prior"] = [section["model"]["a_sigma"], section["model"]["b_sigma"]]
    ours["kept"] = int(section["iterations"]) - int(section["burnin"])
    # the MSE study's own: S (the fewest replicates of a setting) and its rho and lambda grids
    ours["replicates"] = min(int(mse[f"{n}/mse_noisy"].size) for n in names)
    ours["rhos"] = sorted({parse_raim_setting(n)[0] for n in names})
    ours["lambdas"] = sorted({parse_raim_setting(n)[1] for n in names})
    at = SLIDES.at(ours)
    alg2 = _alg2_claims(mse, health, at)
    if getattr(input, "converged", None):
        alg2 = _second_verdicts(alg2, mse, load_npz(input.converged), converged, at)
    else:
        off = "the converged companion is switched off (raim2021.converged.enabled)"
        alg2 = second_verdicts(alg2, None, off)
    rows = (
        _knot_claims(env, at)
        + _envelope_claims(env, at)
        + _example_claims(env, at)
        + _trace_claims(load_npz(input.chains), int(section["burnin"]), at)
        + alg2
        + [_health_claim(mse, health, at, "free")]
        + _timing_claims(read_json(input.timing))
    )
    write_claims(output.claims, rows)
