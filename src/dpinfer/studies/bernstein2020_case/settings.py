"""The thesis's settings of the case study (Sec. 5.4) beside this run's, for the claims and tables.

Every scorecard row of the case study (:mod:`.paper`) and every cell of the state table
(:mod:`.summarise`) that puts a thesis value beside ours records the settings that value refers
to, from :class:`CaseSettings`; a row at another setting is "not comparable" and a table cell
prints "n/a" with a note naming what differs (one implementation for both).

The thesis prints the state's counts, the filter, the prediction point, the priors, the chain
lengths (20,000 kept after 5,000 burn-in for Gibbs-SS, 2,000 draws for Non-Private and Naive),
the headline epsilon 4 and the interval levels of Figs 5.11-5.13. It leaves open the epsilon
grid of Figs 5.13-5.15, our synthetic state's generator, the data window of the Fig 5.11 check,
OI's sensitivity grid, the sampler's collapsed moves and sign flip, and the diagnostics: for
those our paper-scale config values (``config/config.yaml``; a test holds them equal) stand for
the thesis's setting.

Gibbs-SS at paper scale runs the thesis's lengths at the headline epsilon only and shorter
chains (``grid_gibbs``) at the other epsilons (docs/deviations.md, "Case study: chain
lengths"): a claim that reads Gibbs-SS output at another epsilon is then not at the thesis's
setting.
"""

from __future__ import annotations

import math

from ..scorecard import Setting, health_settings, setting
from .grid import case_chain_specs

__all__ = [
    "PAPER_STATE",
    "PAPER_PRIOR",
    "PAPER_DATA_PRIOR",
    "PAPER_PIR",
    "PAPER_DROP",
    "PAPER_BURNIN",
    "PAPER_KEEP",
    "PAPER_CHAINS",
    "PAPER_CONJUGATE_DRAWS",
    "PAPER_NOISY_MOMENTS",
    "PAPER_HEADLINE_EPSILON",
    "PAPER_LEVELS",
    "AT_PAPER_SCALE",
    "SAMPLER_CHOICE",
    "PAPER_SCALE",
    "CaseSettings",
    "state_settings",
    "state_table_settings",
]

# ---------------------------------------------------------------------------- printed in the thesis
# Sec. 5.4.1: 3,108 tracts of 20-446 individuals, 363 dropped by the median-kir filter, 2,745 kept
PAPER_STATE = {"tracts": 3108, "dropped": 363, "kept": 2745, "min_size": 20, "max_size": 446}
PAPER_DROP = [0.1, 0.9]  # drop a tract whose median kir is below .1 or above .9
PAPER_PIR = 0.25  # the prediction point
PAPER_PRIOR = {
    "mu0": [0.1, 0.5],
    "lambda0_diag": [0.001, 0.001],
    "a0": 1000.0,
    "b0": 0.5,
}  # Sec. 5.4.2
PAPER_DATA_PRIOR = {"m0": 0.5, "kappa": 1.0, "psi": 1.0, "nu": 50.0}  # NIW(.5, 1, 1, 50)
PAPER_BURNIN, PAPER_KEEP, PAPER_CHAINS = (
    5000,
    20000,
    1,
)  # Gibbs-SS: one run of 5,000 + 20,000 per tract
PAPER_CONJUGATE_DRAWS = 2000  # Non-Private and Naive
PAPER_NOISY_MOMENTS = "released"  # Gibbs-SS-Noisy's moments (Ch. 5)
PAPER_HEADLINE_EPSILON = 4.0  # Figs 5.11, 5.12, 5.16 (Chetty and Friedman's)
PAPER_LEVELS = [0.5, 0.9]  # Figs 5.12, 5.13; Fig 5.11 shows the 90% ones

# --------------------------------------------------------------------- free choices, at paper scale
AT_PAPER_SCALE = "at paper scale (the thesis gives none)"
SAMPLER_CHOICE = "at paper scale (a sampler choice the thesis does not make)"
PAPER_SCALE = {
    "epsilons": [1.0, 2.0, 4.0, 8.0, 16.0],  # the thesis centres at 4 and gives no grid
    # the synthetic state's generator (the thesis's data are not public)
    "generator": {
        "size_scale": 55,
        "size_sigma": 0.9,
        "pir_concentration": 3.0,
        "level_mean": 0.42,
        "level_gradient": 0.3,
        "level_sd": 0.21,
        "slope_mean": 0.3,
        "slope_sd": 0.1,
        "noise_sd": 0.025,
        "noise_sigma": 0.3,
    },
    "data_window": 0.1,  # "records near pir = .25" of the Fig 5.11 check
    "oi_grid": 401,  # x' grid of OI's local sensitivity
    "collapsed_moves": 1,  # per Gibbs-SS iteration at the headline epsilon (same posterior)
    "grid_collapsed_moves": 3,  # at the other epsilons (grid_gibbs)
    "sign_flip": False,  # the flip does not change the posterior here (tested)
    "diagnostic_draws": 5000,  # draws per chain R-hat and ESS read
    "health": {"max_rhat": 1.01, "min_ess": 100},  # the thesis reports no diagnostics
}


def _isclose(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)


# ----------------------------------------------------------------------------- the state
def tract_count_settings(tracts: dict) -> tuple[Setting, ...]:
    return (setting("tracts in the state", PAPER_STATE["tracts"], int(tracts["count"])),)


def size_range_settings(tracts: dict) -> tuple[Setting, ...]:
    return (
        setting("smallest tract size", PAPER_STATE["min_size"], int(tracts["min_size"])),
        setting("largest tract size", PAPER_STATE["max_size"], int(tracts["max_size"])),
    )


def state_settings(tracts: dict, drop) -> tuple[Setting, ...]:
    """What every number computed on the state refers to: the thesis's counts, sizes and filter,
    and our generator's paper-scale choices."""
    return (
        tract_count_settings(tracts)
        + size_range_settings(tracts)
        + (setting("median-kir filter", PAPER_DROP, [float(v) for v in drop]),)
        + tuple(
            setting(
                f"state generator {key.replace('_', ' ')}",
                value,
                tracts.get(key),
                source=AT_PAPER_SCALE,
            )
            for key, value in PAPER_SCALE["generator"].items()
        )
    )


def state_table_settings(tracts: dict, drop) -> dict[str, tuple[Setting, ...]]:
    """Per quantity of the state table, the settings the thesis's value refers to (the table
    prints it only when all of them match; the claims use the same functions)."""
    state = state_settings(tracts, drop)
    return {
        "tracts": tract_count_settings(tracts),
        "dropped": state,
        "kept": state,
        "min_size": size_range_settings(tracts),
        "max_size": size_range_settings(tracts),
    }


class CaseSettings:
    """This run's case-study config beside the thesis's settings; each method returns a tuple of
    :class:`~dpinfer.studies.scorecard.Setting` for one kind of claim.

    Keywords are the config keys of ``bernstein2020.case_study`` that a claim depends on."""

    def __init__(
        self,
        *,
        tracts: dict,
        drop,
        pir: float,
        levels,
        prior: dict,
        data_prior: dict,
        conjugate_draws: int,
        gibbs: dict,
        grid_gibbs: dict,
        headline_epsilon: float,
        data_window: float,
        oi_grid: int,
        health: dict,
    ):
        self.tracts, self.drop, self.pir, self.levels = (
            tracts,
            list(drop),
            float(pir),
            [float(v) for v in levels],
        )
        self.prior, self.data_prior = prior, data_prior
        self.conjugate_draws, self.headline = int(conjugate_draws), float(headline_epsilon)
        self.data_window, self.oi_grid, self.health = float(data_window), int(oi_grid), health
        self._case = {
            "methods": ["gibbs_ss_noisy", "gibbs_ss_update"],
            "conjugate_draws": self.conjugate_draws,
            "gibbs": gibbs,
            "grid_gibbs": grid_gibbs,
            "headline_epsilon": self.headline,
        }

    def _spec(self, epsilon: float, method: str = "gibbs_ss_update") -> dict:
        """The chain spec the batch jobs run at ``epsilon`` (:func:`.grid.case_chain_specs`)."""
        return case_chain_specs(self._case, epsilon)[self._case["methods"].index(method)]

    def _scopes(self, epsilons):
        """The claim's epsilons split into the headline one and the others (``grid_gibbs``)."""
        headline = [float(e) for e in epsilons if _isclose(e, self.headline)]
        others = [float(e) for e in epsilons if not _isclose(e, self.headline)]
        return [
            (where, eps, moves)
            for where, eps, moves in (
                ("at the headline epsilon", headline, PAPER_SCALE["collapsed_moves"]),
                ("at the other epsilons", others, PAPER_SCALE["grid_collapsed_moves"]),
            )
            if eps
        ]

    # -------------------------------------------------------------------- data, model and draws
    def tract_count(self) -> tuple[Setting, ...]:
        return tract_count_settings(self.tracts)

    def size_range(self) -> tuple[Setting, ...]:
        return size_range_settings(self.tracts)

    def state(self) -> tuple[Setting, ...]:
        return state_settings(self.tracts, self.drop)

    def model(self) -> tuple[Setting, ...]:
        return (
            setting("model prior NIG", PAPER_PRIOR, self.prior),
            setting("data prior NIW", PAPER_DATA_PRIOR, self.data_prior),
            setting("prediction point pir", PAPER_PIR, self.pir),
        )

    def data(self) -> tuple[Setting, ...]:
        """Every number computed from the state's tracts with the thesis's model."""
        return self.state() + self.model()

    def conjugate(self) -> tuple[Setting, ...]:
        return (
            setting(
                "Non-Private and Naive draws",
                PAPER_CONJUGATE_DRAWS,
                self.conjugate_draws,
                at_least=True,
            ),
        )

    def against_non_private(self) -> tuple[Setting, ...]:
        """Every number measured against Non-Private (the thesis's yardstick): the state, the
        model and Non-Private's draws."""
        return self.data() + self.conjugate()

    def lengths(self, epsilons) -> tuple[Setting, ...]:
        """Gibbs-SS's chain lengths at ``epsilons`` (those the row reads) beside the thesis's
        (at least 5,000 burn-in and 20,000 kept draws, one chain per tract, at every epsilon)."""
        out = []
        for where, eps, _ in self._scopes(epsilons):
            spec = self._spec(eps[0])  # every flavour has the same lengths at one epsilon
            out += [
                setting(
                    f"Gibbs-SS burn-in {where}", PAPER_BURNIN, int(spec["burnin"]), at_least=True
                ),
                setting(
                    f"Gibbs-SS kept draws per tract {where}",
                    PAPER_KEEP,
                    int(spec["keep"]) * int(spec["chains"]),
                    at_least=True,
                ),
                setting(f"Gibbs-SS chains per tract {where}", PAPER_CHAINS, int(spec["chains"])),
            ]
        return tuple(out)

    def gibbs(self, epsilons, methods=("gibbs_ss_update",)) -> tuple[Setting, ...]:
        """Gibbs-SS's chains at ``epsilons`` (those the row reads), for the flavours ``methods``:
        the thesis's lengths (:meth:`lengths`); our paper-scale sampler choices, which differ
        between the headline epsilon and the others (``grid_gibbs``); Gibbs-SS-Noisy's moments."""
        out = list(self.lengths(epsilons))
        for where, eps, moves in self._scopes(epsilons):
            opts = self._spec(eps[0])["options"]
            out += [
                setting(
                    f"Gibbs-SS collapsed moves per iteration {where}",
                    moves,
                    int(opts["collapsed_moves"]),
                    source=SAMPLER_CHOICE,
                ),
                setting(
                    f"Gibbs-SS sign flip {where}",
                    PAPER_SCALE["sign_flip"],
                    bool(opts.get("sign_flip", True)),
                    source=SAMPLER_CHOICE,
                ),
            ]
        if "gibbs_ss_noisy" in methods:
            out.append(
                setting(
                    "Gibbs-SS-Noisy moments",
                    PAPER_NOISY_MOMENTS,
                    self._spec(self.headline, "gibbs_ss_noisy")["options"]["moments"],
                )
            )
        return tuple(out)

    def diagnostics(self, epsilons) -> tuple[Setting, ...]:
        """What a convergence check refers to besides the chains (:meth:`gibbs`): the cap on the
        draws per chain the diagnostics read and the thresholds (the thesis reports no
        diagnostics, so the paper-scale ones stand for its setting)."""
        cap = min(int(s.get("diagnostic_draws", s["keep"])) for s in map(self._spec, epsilons))
        return (
            setting(
                "draws R-hat and ESS read per chain (at most)",
                PAPER_SCALE["diagnostic_draws"],
                cap,
                at_least=True,
                source=AT_PAPER_SCALE,
            ),
            *health_settings(PAPER_SCALE["health"], self.health, AT_PAPER_SCALE),
        )

    # -------------------------------------------------------------------- epsilons, levels, windows
    def headline_epsilon(self) -> tuple[Setting, ...]:
        return (
            setting(
                "headline epsilon (Figs 5.11, 5.12, 5.16)", PAPER_HEADLINE_EPSILON, self.headline
            ),
        )

    def grid(self, epsilons) -> tuple[Setting, ...]:
        """The epsilon grid a statement "over epsilon" (Figs 5.13-5.15) ranges over."""
        return (
            setting(
                "epsilon grid",
                PAPER_SCALE["epsilons"],
                [float(e) for e in epsilons],
                source=AT_PAPER_SCALE,
            ),
        )

    def smallest_epsilon(self, epsilons) -> tuple[Setting, ...]:
        return (
            setting(
                "smallest epsilon",
                min(PAPER_SCALE["epsilons"]),
                float(min(epsilons)),
                source=AT_PAPER_SCALE,
            ),
        )

    def levels_all(self) -> tuple[Setting, ...]:
        return (setting("interval levels", PAPER_LEVELS, self.levels),)

    def widest_level(self) -> tuple[Setting, ...]:
        """The level of the widest interval (Fig 5.11's 90%)."""
        return (setting("interval level", PAPER_LEVELS[-1], self.levels[-1]),)

    def window(self) -> tuple[Setting, ...]:
        return (
            setting(
                "data window around pir",
                PAPER_SCALE["data_window"],
                self.data_window,
                source=AT_PAPER_SCALE,
            ),
        )

    def oi(self) -> tuple[Setting, ...]:
        return (
            setting(
                "OI sensitivity grid points",
                PAPER_SCALE["oi_grid"],
                self.oi_grid,
                source=AT_PAPER_SCALE,
            ),
        )
