"""Chain specs of the NIG linear-regression methods from a config section (pure Python).

The methods themselves and the runner of a spec are in :mod:`dpinfer.studies.nig_methods`
(numerical); this module holds only the spec, so the rule files of chapter 5 and the case study
build the ``chains`` params of their jobs when the workflow is parsed (the comparison study
builds its specs in its jobs, from the same function). It imports nothing from the package.
"""

from __future__ import annotations

__all__ = ["nig_chain_spec"]


def nig_chain_spec(method: str, section: dict, n: int = 0) -> dict:
    """The chain spec of one method of the NIG regression model (the method table,
    :mod:`dpinfer.studies.nig_methods`) from a config section with ``conjugate_draws``,
    ``gibbs`` and (for MCMC-Ind) ``mcmc_ind``, optionally with its ``noncentred_moves`` per
    sweep: conjugate methods draw independently (no burn-in, one "chain"); Gibbs-SS burns in and
    keeps longer from ``gibbs.large_n`` on when that key is set; options reach the sampler as
    keywords; ``gibbs.diagnostic_draws`` (when set) caps the draws per chain that R-hat and ESS
    read (:func:`dpinfer.studies.nig_methods.run_chain`)."""
    if method in ("non_private", "naive"):
        return {
            "method": method,
            "burnin": 0,
            "keep": section["conjugate_draws"],
            "chains": 1,
            "options": {},
        }
    if method == "mcmc_ind":
        m = section["mcmc_ind"]
        return {
            "method": method,
            "burnin": m["burnin"],
            "keep": m["keep"],
            "chains": m["chains"],
            # without the key the sampler's default number of non-centred moves per sweep
            "options": {"noncentred_moves": m["noncentred_moves"]}
            if "noncentred_moves" in m
            else {},
        }
    g = section["gibbs"]
    large = "large_n" in g and n >= g["large_n"]
    options = {"collapsed_moves": g["collapsed_moves"]}
    if method == "gibbs_ss_noisy" and "noisy_moments" in g:  # else the sampler's default
        options["moments"] = g["noisy_moments"]
    if "sign_flip" in g:
        options["sign_flip"] = g["sign_flip"]
    spec = {
        "method": method,
        "burnin": g["burnin_large_n"] if large else g["burnin"],
        "keep": g["keep_large_n"] if large else g["keep"],
        "chains": g["chains"],
        "options": options,
    }
    if "diagnostic_draws" in g:
        spec["diagnostic_draws"] = g["diagnostic_draws"]
    return spec
