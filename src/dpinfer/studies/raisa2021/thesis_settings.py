"""The thesis's settings (raisa2021) beside this run's, for the claims and the tables.

Every scorecard row (:mod:`.paper`, :mod:`.chain_claims`) records the settings its thesis value
refers to, from :class:`RunSettings`; the tab5_1 table and the summary's iteration counts use
:func:`table_5_1_settings` and :func:`iteration_settings` (one implementation for both). A row at
another setting is "not comparable" and names what differs.

The thesis prints Table 5.1 (each model's dim, n, n0, start deviation, a and prior variance),
delta = 0.1 / n, the epsilon grids, the 20 chains per setting, the ten exact-sample baselines and
the clipping study's chains and threshold. Where its text gives no value (the hyperparameter
version, the MMD's reference size and bandwidth pairs, the figures' grids, the clipping study's n
and bounds) the author's code (reference FACTS.md) and our paper-scale config give the reference;
``tests/test_raisa2021_claims.py`` holds these constants to config/config.yaml. (The author's
hyperparameters as the workflow reads them are in :mod:`.settings`.)
"""

from __future__ import annotations

from ..scorecard import Setting, setting, setting_in

__all__ = [
    "NAMES",
    "TABLE_5_1",
    "THESIS_EPSILONS",
    "THESIS_CIRCLE_EPSILONS",
    "THESIS_CHAINS",
    "THESIS_DELTA_FACTOR",
    "THESIS_BASELINES",
    "VERSION",
    "START_RULE",
    "REFERENCE_DRAWS",
    "MMD_PAIRS",
    "FIG6_1",
    "FIG4_1",
    "CLIPPING_DIMS",
    "BANANA_MODELS",
    "HARD_MODELS",
    "CLIPPING",
    "IN_THESIS",
    "IN_TABLE_5_1",
    "IN_CODE",
    "table_5_1_settings",
    "iteration_settings",
    "shown_positions",
    "RunSettings",
]

# ---------------------------------------------------------------------------- printed in the thesis
# the models' names in Table 5.1 (figure titles use them too)
NAMES = {
    "easy-2d": "Flat banana, d = 2",
    "easy-10d": "Flat banana, d = 10",
    "tempered-2d": "Tempered banana, d = 2",
    "tempered-10d": "Tempered banana, d = 10",
    "gauss-30d": "High dimensional Gauss",
    "hard-2d": "Narrow banana",
    "hard-gauss-2d": "Correlated Gauss",
    "circle": "Circle",
}

# Table 5.1 as printed ("" = blank cell)
TABLE_5_1 = {
    "easy-2d": {
        "dim": 2,
        "n": 100000,
        "n0": "",
        "start deviation": 0.02,
        "a": 20,
        "sigma_0^2": 1000,
    },
    "easy-10d": {
        "dim": 10,
        "n": 200000,
        "n0": "",
        "start deviation": 0.02,
        "a": 20,
        "sigma_0^2": 1000,
    },
    "tempered-2d": {
        "dim": 2,
        "n": 100000,
        "n0": 1000,
        "start deviation": 0.02,
        "a": 20,
        "sigma_0^2": 1000,
    },
    "tempered-10d": {
        "dim": 10,
        "n": 200000,
        "n0": 1000,
        "start deviation": 0.02,
        "a": 20,
        "sigma_0^2": 1000,
    },
    "gauss-30d": {
        "dim": 30,
        "n": 200000,
        "n0": "",
        "start deviation": 0.02,
        "a": 0,
        "sigma_0^2": 1000,
    },
    "hard-2d": {
        "dim": 2,
        "n": 150000,
        "n0": "",
        "start deviation": 0.02,
        "a": 350,
        "sigma_0^2": 1000,
    },
    "hard-gauss-2d": {
        "dim": 2,
        "n": 200000,
        "n0": "",
        "start deviation": 0.005,
        "a": 0,
        "sigma_0^2": 100,
    },
    "circle": {
        "dim": 2,
        "n": 100000,
        "n0": "",
        "start deviation": 0.1,
        "a": 1e-05,
        "sigma_0^2": "",
    },
}
# Section 5.4 and 6.3: 20 chains per setting, delta = 0.1 / n, the epsilon grids of Figs 6.3-6.8,
# ten exact-sample baselines (Figs 6.2-6.4)
THESIS_EPSILONS = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
THESIS_CIRCLE_EPSILONS = [0.5, 0.75, 1.0]
THESIS_CHAINS = 20
THESIS_DELTA_FACTOR = 0.1
THESIS_BASELINES = 10

# ----------------------------------------------------------- from the author's code, at paper scale
# Where the text gives none, the author's code (FACTS.md) and our paper-scale config:
VERSION = "seed"  # hyperparameters of the thesis text's code state 9c834d7 (FACTS.md 0)
START_RULE = "start_sd"  # Table 5.1's start deviation (the text)
REFERENCE_DRAWS = 1000  # the reference posterior sample (FACTS.md 1.2; the clipping text says 2000)
MMD_PAIRS = 500  # MMD bandwidth pairs (FACTS.md 1.1; the text says 50)
# Fig 6.1: the 2-d flat banana (n = 1e5, delta = 0.1 / n) over linspace(0.5, 6, 50) (FACTS.md 6)
FIG6_1 = {"n": 100000, "delta": 1e-6, "epsilon_min": 0.5, "epsilon_max": 6.0, "points": 50}
# Fig 4.1: epsilon 1, L = 48, iteration 16, panels at leapfrog positions 4, 8, ..., 48 (FACTS.md 6,
# the seed's frame offset 788 = 16 x 49 + 4)
FIG4_1 = {
    "epsilon": 1.0,
    "steps": 48,
    "iteration": 16,
    "first_position": 4,
    "every": 4,
    "panels": 12,
}
# Fig 6.2: the scripts' n = 1e5 for both dimensions and bounds (FACTS.md 3.5), 20 chains per bound
# and the Euclidean threshold (the text)
CLIPPING_DIMS = (2, 10)
# the model groups of the thesis's figures: the bananas of Fig 6.3 (MMD, clipping), the harder
# posteriors of Fig 6.4
BANANA_MODELS = ("easy-2d", "tempered-2d", "easy-10d", "tempered-10d")
HARD_MODELS = ("gauss-30d", "hard-2d", "hard-gauss-2d")
CLIPPING = {
    "n": 100000,
    "bounds": [0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 1000.0],
    "chains": 20,
    "threshold": "euclidean",
}

# where a setting's reference value comes from
IN_THESIS = "in the thesis"
IN_TABLE_5_1 = "in the thesis (Table 5.1)"
IN_CODE = "in the author's code (FACTS.md)"
_BLANK = {"n0": "none (T = 1)", "sigma_0^2": "none (flat prior)"}
_START_RULES = {"ref_sd_1.5": "1.5 x reference sd", "ref_sd_mean": "mean reference sd"}


def _blank(column: str, value):
    return _BLANK.get(column, "") if value in ("", None) else value


def table_5_1_settings(model: str, spec: dict, start_rule: str) -> tuple[Setting, ...]:
    """Table 5.1's columns of one model beside this run's (the params file, n scaled by
    ``data_fraction``, the start rule): the tab5_1 table's "same as thesis" and the tab5_1
    claims use this one function."""
    paper = TABLE_5_1[model]
    start = (
        float(spec["start_sd_seed_text"])
        if start_rule == START_RULE
        else _START_RULES.get(start_rule, f"start rule {start_rule}")
    )
    ours = {
        "dim": int(spec["dim"]),
        "n": int(spec["n"]),
        "n0": spec.get("n0"),
        "start deviation": start,
        "a": float(spec["a"]),
        "sigma_0^2": spec.get("prior_variance"),
    }
    return tuple(
        setting(col, _blank(col, paper[col]), _blank(col, ours[col]), source=IN_TABLE_5_1)
        for col in ours
    )


def _n(models, n: dict) -> Setting:
    """Each model's n (Table 5.1) beside this run's."""
    models = [m for m in models if m in n]
    return setting(
        "n",
        {m: TABLE_5_1[m]["n"] for m in models},
        {m: int(n[m]) for m in models},
        source=IN_TABLE_5_1,
    )


def _version(version: str) -> Setting:
    return setting(
        "hyperparameters",
        VERSION,
        version,
        source="at paper scale: the thesis text's code state (FACTS.md 0)",
    )


def _delta(delta_factor: float) -> Setting:
    return setting("delta x n", THESIS_DELTA_FACTOR, float(delta_factor), source=IN_THESIS)


def iteration_settings(
    model: str, *, n: int, delta_factor: float, version: str
) -> tuple[Setting, ...]:
    """What the author's iteration counts of one model refer to (n, delta, hyperparameters): the
    summary table prints them and the claims compare them only at this setting."""
    return _n([model], {model: n}), _delta(delta_factor), _version(version)


def shown_positions(n_positions: int, first_position: int, every: int, panels: int) -> list[int]:
    """The leapfrog positions Fig 4.1's panels end at (the figure draws the path up to each)."""
    return list(range(int(first_position), int(n_positions), int(every)))[: int(panels)]


class RunSettings:
    """This run's settings (the claims rule's params) beside the thesis's, by what a claim
    refers to. ``n``: each configured model's n as run; ``clipping``: the clipping study's
    config with its n as run."""

    def __init__(
        self,
        *,
        version: str,
        epsilons,
        circle_epsilons,
        chains: int,
        delta_factor: float,
        start_rule: str,
        reference_draws: int,
        mmd_bandwidth_pairs: int,
        baseline_samples: int,
        n: dict,
        fig6_1: dict,
        fig4_1: dict,
        clipping: dict,
    ):
        self.version, self.n, self.fig6_1, self.fig4_1, self.clip = (
            version,
            n,
            fig6_1,
            fig4_1,
            clipping,
        )
        self.epsilons = [float(e) for e in epsilons]
        self.circle_epsilons = [float(e) for e in circle_epsilons]
        self.chains_run, self.delta_factor, self.start_rule = (
            int(chains),
            float(delta_factor),
            start_rule,
        )
        self.reference_draws, self.pairs = int(reference_draws), int(mmd_bandwidth_pairs)
        self.baselines = int(baseline_samples)

    # the pieces
    def grid(self, circle: bool = False) -> tuple[Setting, ...]:
        if circle:
            return (
                setting(
                    "circle epsilon grid",
                    THESIS_CIRCLE_EPSILONS,
                    self.circle_epsilons,
                    source=IN_THESIS,
                ),
            )
        return (setting("epsilon grid", THESIS_EPSILONS, self.epsilons, source=IN_THESIS),)

    def models(self, figure_models, ran) -> tuple[Setting, ...]:
        """The models a statement over several models ranges over, beside those this run has."""
        return (
            setting(
                "models",
                list(figure_models),
                [m for m in figure_models if m in set(ran)],
                source=IN_THESIS,
            ),
        )

    def mmd(self) -> tuple[Setting, ...]:
        return (
            setting(
                "reference draws",
                REFERENCE_DRAWS,
                self.reference_draws,
                at_least=True,
                source=IN_CODE,
            ),
            setting(
                "MMD bandwidth pairs",
                MMD_PAIRS,
                self.pairs,
                at_least=True,
                source=IN_CODE + ", the text says 50",
            ),
        )

    def chains(self, models) -> tuple[Setting, ...]:
        """What every DP chain of these models refers to: n, delta, hyperparameters, start rule and
        the 20 chains per setting (at least)."""
        return (
            _n(models, self.n),
            _delta(self.delta_factor),
            _version(self.version),
            setting("start rule", START_RULE, self.start_rule, source=IN_TABLE_5_1),
            setting(
                "chains per setting",
                THESIS_CHAINS,
                self.chains_run,
                at_least=True,
                source=IN_THESIS,
            ),
        )

    # by claim kind
    def mmd_panel(self, model: str) -> tuple[Setting, ...]:
        """An MMD ordering on one model's panel, over the epsilon grid."""
        return self.chains([model]) + self.mmd() + self.grid(model == "circle")

    def panels(self, figure_models, ran, *, circle: bool = False) -> tuple[Setting, ...]:
        """A statement over the panels of several models (clip fractions, gradient clipping)."""
        out = (
            self.chains([m for m in figure_models if m in self.n])
            + self.models(figure_models, ran)
            + self.grid()
        )
        return out + (self.grid(True) if circle else ())

    def iterations(self, model: str) -> tuple[Setting, ...]:
        return iteration_settings(
            model, n=self.n[model], delta_factor=self.delta_factor, version=self.version
        )

    def fig6_1_curves(self, *, whole_grid: bool) -> tuple[Setting, ...]:
        """Fig 6.1: n and delta of the 2-d flat banana, the hyperparameters; ``whole_grid`` adds the
        figure's epsilon grid (statements over every epsilon), otherwise its largest epsilon."""
        f, p = self.fig6_1, FIG6_1
        out = (
            setting("Fig 6.1 n", p["n"], int(f["n"]), source=IN_TABLE_5_1),
            setting(
                "Fig 6.1 delta",
                p["delta"],
                float(f["delta"]),
                source="in the thesis (delta = 0.1 / n)",
            ),
            _version(self.version),
        )
        if whole_grid:
            grid = [p["epsilon_min"], p["epsilon_max"], p["points"]]
            return out + (
                setting(
                    "Fig 6.1 epsilon grid (from, to, points)",
                    grid,
                    [float(f["epsilon_min"]), float(f["epsilon_max"]), int(f["points"])],
                    source=IN_CODE,
                ),
            )
        return out + (
            setting(
                "Fig 6.1 largest epsilon", p["epsilon_max"], float(f["epsilon_max"]), source=IN_CODE
            ),
        )

    def fig6_1_points(self) -> tuple[Setting, ...]:
        """Fig 6.1's curves at the chains' epsilon grid: n and delta of the figure (the 2-d flat
        banana's), the hyperparameters and the grid (where the author's counts are known)."""
        return self.fig6_1_curves(whole_grid=False)[:3] + self.grid()

    def trajectory(self) -> tuple[Setting, ...]:
        """Fig 4.1: the circle's n, delta and hyperparameters, the trajectory (epsilon, L,
        iteration) and the leapfrog positions the panels show."""
        f, p = self.fig4_1, FIG4_1
        return (
            _n(["circle"], self.n),
            _delta(self.delta_factor),
            _version(self.version),
            setting("Fig 4.1 epsilon", p["epsilon"], float(f["epsilon"]), source=IN_CODE),
            setting("Fig 4.1 leapfrog steps L", p["steps"], int(f["steps"]), source=IN_CODE),
            setting("Fig 4.1 iteration", p["iteration"], int(f["iteration"]), source=IN_CODE),
            setting(
                "Fig 4.1 panels (first position, every, count)",
                [p["first_position"], p["every"], p["panels"]],
                [int(f["first_position"]), int(f["every"]), int(f["panels"])],
                source=IN_CODE,
            ),
        )

    def clipping(self, dim: int, *, baselines: bool = False) -> tuple[Setting, ...]:
        """Fig 6.2: the panel's dimension (2 or 10), n of the clipping model, the bound grid, 20
        chains per bound (at least), the threshold, the MMD's reference and bandwidth pairs (and
        the ten baselines)."""
        c, p = self.clip, CLIPPING
        out = (
            setting_in("dimension", CLIPPING_DIMS, int(dim), source=IN_THESIS),
            setting("clipping study n", p["n"], int(c["n"]), source=IN_CODE),
            setting("clip bounds", p["bounds"], [float(b) for b in c["bounds"]], source=IN_CODE),
            setting(
                "chains per bound", p["chains"], int(c["chains"]), at_least=True, source=IN_THESIS
            ),
            setting("clip threshold", p["threshold"], str(c["threshold"]), source=IN_THESIS),
        ) + self.mmd()
        if baselines:
            out += (
                setting(
                    "exact-sample baselines",
                    THESIS_BASELINES,
                    self.baselines,
                    at_least=True,
                    source=IN_THESIS,
                ),
            )
        return out
