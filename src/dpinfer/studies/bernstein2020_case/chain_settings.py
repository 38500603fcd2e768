"""The case study's settings beside the thesis's: settings.yaml, plus Gibbs-SS's chain settings
read from the chain specs the batch jobs run (the headline epsilon's and the others')."""

from __future__ import annotations

import math

from ..document_settings import Run
from ..scorecard import Setting
from .grid import case_chain_specs
from .summarise import THESIS

__all__ = ["HEADLINE", "GRID_CHAINS", "CaseSettings"]

# the epsilons a Gibbs-SS setting is read at (its label's {where}): at paper scale the thesis's
# chain lengths run at the headline epsilon only (docs/deviations.md, "Case study: chain lengths")
HEADLINE, GRID_CHAINS = "at the headline epsilon", "at the other epsilons"


class CaseSettings(Run):
    """The thesis's settings beside this run's (settings.yaml; call it with keys or groups), and
    those of Gibbs-SS's chains at the epsilons a row reads, from the chain specs the batch jobs
    run (:func:`.grid.case_chain_specs` of ``case``): ``gibbs`` at the headline epsilon
    (``headline``), ``grid_gibbs`` at the others. ``case``: the config keys of
    ``bernstein2020.case_study`` the claims depend on (the claims rule's params); this run's
    values are read from it at settings.yaml's ``config`` paths."""

    def __init__(self, case: dict):
        ours = THESIS.config_values(case)
        super().__init__(THESIS, dict(ours, widest_level=float(case["levels"][-1])))
        self.case = dict(case, methods=["gibbs_ss_noisy", "gibbs_ss_update"])
        self.headline = float(case["headline_epsilon"])

    def _spec(self, epsilon: float, method: str = "gibbs_ss_update") -> dict:
        return case_chain_specs(self.case, epsilon)[self.case["methods"].index(method)]

    def _where(self, epsilons):
        """The epsilons split into the headline one and the others, with the key of the
        collapsed moves our paper scale runs there."""
        split = {HEADLINE: [], GRID_CHAINS: []}
        for e in epsilons:
            close = math.isclose(float(e), self.headline, rel_tol=1e-12, abs_tol=0.0)
            split[HEADLINE if close else GRID_CHAINS].append(float(e))
        moves = {HEADLINE: "collapsed_moves", GRID_CHAINS: "grid_collapsed_moves"}
        return [(where, eps, moves[where]) for where, eps in split.items() if eps]

    def lengths(self, epsilons) -> tuple[Setting, ...]:
        """Gibbs-SS's chain lengths at ``epsilons`` (those the row reads) beside the thesis's."""
        out = []
        for where, eps, _ in self._where(epsilons):
            spec = self._spec(eps[0])  # every flavour has the same lengths at one epsilon
            n = int(spec["chains"])
            ours = {"burnin": int(spec["burnin"]), "keep": int(spec["keep"]) * n, "chains": n}
            out += [self.setting(k, v, where=where) for k, v in ours.items()]
        return tuple(out)

    def gibbs(self, epsilons, methods=("gibbs_ss_update",)) -> tuple[Setting, ...]:
        """Gibbs-SS's chains at ``epsilons`` for the flavours ``methods``: the lengths, our
        sampler choices (which differ between the headline epsilon and the others) and
        Gibbs-SS-Noisy's moments."""
        out = list(self.lengths(epsilons))
        for where, eps, moves in self._where(epsilons):
            opts = self._spec(eps[0])["options"]
            out += [
                self.setting(moves, int(opts["collapsed_moves"]), where=where),
                self.setting("sign_flip", bool(opts.get("sign_flip", True)), where=where),
            ]
        if "gibbs_ss_noisy" in methods:
            noisy = self._spec(self.headline, "gibbs_ss_noisy")
            out.append(self.setting("noisy_moments", noisy["options"]["moments"]))
        return tuple(out)

    def diagnostics(self, epsilons) -> tuple[Setting, ...]:
        """What a convergence check refers to besides the chains: the cap on the draws per
        chain the diagnostics read and the thresholds."""
        cap = min(int(s.get("diagnostic_draws", s["keep"])) for s in map(self._spec, epsilons))
        return (self.setting("diagnostic_draws", cap), *self("health"))

    def grid(self, epsilons) -> tuple[Setting, ...]:
        """The epsilon grid a statement "over epsilon" (Figs 5.13-5.15) ranges over."""
        return self("epsilons", epsilons=[float(e) for e in epsilons])

    def smallest_epsilon(self, epsilons) -> tuple[Setting, ...]:
        return self("smallest_epsilon", smallest_epsilon=float(min(epsilons)))
