"""The one method vocabulary: every method's name, display look, samplers and seed stream.

A method's ``name`` is what ``config/config.yaml`` lists, what tables use as a column or row key
and what figures draw; :data:`METHODS` maps it to a :class:`Method`:

- ``label``, ``color``, ``marker``, ``linestyle``: its look in every figure
  (:mod:`dpinfer.plotting.methods` draws through it);
- ``runs``: registry model -> ``"module:function"`` within :mod:`dpinfer.samplers`, the sampler
  that runs the method on that model (:func:`dpinfer.samplers.registry.sampler` imports it);
  empty for methods that are only point estimators or tract-level baselines (``oi``);
- ``fits``: ``"module:function"`` within :mod:`dpinfer.estimators`, the point estimator of
  chapter 3 that fits the method (:func:`dpinfer.estimators.estimator` imports it);
- ``iid``: its draws are independent (a conjugate or exact posterior): no burn-in, R-hat 1 and
  ESS = draws, nothing for the chain diagnostics to flag;
- ``stream``: the seed-key stage of its draws (:func:`stream_stage`), ``sample_<name>`` unless a
  study's streams predate the name (``streams`` overrides it per study, so results stay as they
  were).

Grep a method's name here to find its sampler module, then its ``run_*`` function, then the
kernel that function calls. Pure Python: the workflow imports it when it is parsed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module

__all__ = [
    "PALETTE",
    "BLACK",
    "Method",
    "METHODS",
    "method",
    "stream_stage",
    "sampler_path",
    "estimator_path",
    "load",
]

# seaborn's "colorblind" palette, written out so that a figure job need not import seaborn (two
# seconds per job); tests/test_figures.py checks it against seaborn. In order: blue, orange,
# green, vermillion, purple, brown, pink, grey, yellow, sky blue.
PALETTE = (
    "#0173b2",
    "#de8f05",
    "#029e73",
    "#d55e00",
    "#cc78bc",
    "#ca9161",
    "#fbafe4",
    "#949494",
    "#ece133",
    "#56b4e9",
)
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, BROWN, PINK, GREY, YELLOW, SKY = PALETTE
BLACK = "#000000"


@dataclass(frozen=True)
class Method:
    """One method: its name, look, samplers (registry model -> "module:function") and streams."""

    name: str
    label: str
    color: str
    marker: str
    linestyle: str | tuple
    runs: dict[str, str] = field(default_factory=dict)
    fits: str = ""  # chapter 3's point estimator, "module:function" in dpinfer.estimators
    iid: bool = False  # independent draws (conjugate or exact posterior), not a Markov chain
    stream: str = ""  # seed-key stage of the first chain; "" means sample_<name>
    streams: dict[str, str] = field(default_factory=dict)  # study -> stage, where it differs

    def stage(self, study: str | None = None) -> str:
        """Seed-key stage of this method's (first chain's) draws in ``study``."""
        return self.streams.get(study, self.stream or f"sample_{self.name}")


_RAISA = {"raisa2021": "sample"}
_NIG_MODELS = ("nig_linreg", "nig_linreg_p")  # chapter 5's samplers run on both


def _methods(*methods: Method) -> dict[str, Method]:
    return {m.name: m for m in methods}


METHODS: dict[str, Method] = _methods(
    # references and plug-ins, shared by every study
    Method(
        "non_private",
        "Non-Private",
        BLACK,
        "x",
        ":",
        runs={
            "binomial": "conjugate:run_non_private_binomial",
            "multinomial": "conjugate:run_non_private_multinomial",
            "exponential": "conjugate:run_non_private_exponential",
            "nig_linreg": "conjugate:run_non_private_nig",
            "nig_linreg_p": "conjugate:run_non_private_nig",
        },
        fits="mle:nonprivate_mle",  # chapter 3: the MLE on the confidential tables
        iid=True,
        # chapter 4's stream predates the method's name: keeping it keeps every draw
        streams={"bernstein2020_ch4": "sample_nonprivate"},
    ),
    Method(
        "naive",
        "Naive",
        VERMILLION,
        "s",
        "--",
        runs={
            "binomial": "conjugate:run_naive_binomial",
            "multinomial": "conjugate:run_naive_multinomial",
            "exponential": "conjugate:run_naive_exponential",
            "nig_linreg": "conjugate:run_naive_nig",
            "nig_linreg_p": "conjugate:run_naive_nig",
        },
        iid=True,
    ),
    # exact posterior draws (the comparison study's binomial problem)
    Method(
        "exact",
        "Exact (Beta mixture)",
        ORANGE,
        "*",
        "-",
        runs={"binomial": "conjugate:run_exact_binomial"},
        iid=True,
    ),
    # ju2022's record-wise data augmentation (its Algorithm 1), also run on the binomial; the
    # colour of MCMC-Ind, the same algorithm for chapter 5
    Method(
        "record_wise",
        "Algorithm 1 (record-wise MCMC)",
        GREEN,
        "D",
        "-.",
        runs={
            "loglinear": "data_augmentation:run_loglinear",
            "linreg": "data_augmentation:run_linreg",
            "binomial": "record_wise_binomial:run_record_wise_binomial",
        },
        streams={"ju2022": "sample"},  # the study's streams predate the method names
    ),
    # bernstein2020 chapter 3 (the thesis's names; naive MLE is chapter 3's Naive): estimators
    Method("naive_mle", "Naive MLE", VERMILLION, "s", "--", fits="mle:naive_mle"),
    Method(
        "naive_mle_unprojected", "Naive MLE, no projection", PINK, "v", ":", fits="mle:naive_mle"
    ),
    Method("cgm", "CGM", BLUE, "o", "-", fits="cgm:cgm_em"),
    Method("psgd", "PSGD", GREEN, "^", "-.", fits="psgd:psgd"),
    Method("random", "Random", GREY, "+", (0, (1, 1)), fits="mle:random_estimator"),
    # bernstein2020 chapter 4
    Method(
        "gibbs",
        "Gibbs (noise-aware)",
        BLUE,
        "o",
        "-",
        runs={
            "binomial": "noise_aware_gibbs:run_binomial",
            "multinomial": "noise_aware_gibbs:run_multinomial",
            "exponential": "noise_aware_gibbs:run_truncated_exponential",
        },
    ),
    Method("ops", "OPS", BROWN, "^", "-.", runs={"binomial": "ops:run_ops_binomial"}, iid=True),
    # exact-target MCMC over a noisy table's latent counts, any additive mechanism (releases)
    Method(
        "latent_counts",
        "Latent-count MCMC",
        SKY,
        "p",
        "-",
        runs={"multinomial": "latent_counts:run_latent_counts"},
    ),
    # bernstein2020 chapter 5 and the case study
    *(
        Method(name, label, color, marker, linestyle, runs=dict.fromkeys(_NIG_MODELS, run))
        for name, label, color, marker, linestyle, run in (
            ("gibbs_ss_update", "Gibbs-SS-Update", BLUE, "o", "-", "gibbs_ss:run_gibbs_ss_update"),
            ("gibbs_ss_noisy", "Gibbs-SS-Noisy", SKY, "v", "-", "gibbs_ss:run_gibbs_ss_noisy"),
            ("gibbs_ss_prior", "Gibbs-SS-Prior", PURPLE, "^", "-", "gibbs_ss:run_gibbs_ss_prior"),
            ("mcmc_ind", "MCMC-Ind", GREEN, "D", "-.", "mcmc_ind:run_mcmc_ind"),
        )
    ),
    Method("oi", "OI", ORANGE, "P", "--"),
    # raim2021: Algorithm 2 on the noisy data, Algorithm 4 on the confidential data
    Method(
        "alg2_noisy",
        "Algorithm 2 (noisy)",
        BLACK,
        "o",
        "-",
        runs={"lognormal_regression": "lognormal_gibbs:run_noisy"},
        stream="sample",
    ),
    Method(
        "alg4_noise_free",
        "Algorithm 4 (noise-free)",
        GREY,
        "s",
        "--",
        runs={"lognormal_regression": "lognormal_gibbs:run_noise_free"},
        stream="sample_free",
    ),
    # raisa2021: the six DP samplers, and the non-DP samplers of the clipping study (one stream
    # name, "sample", within each setting's key: the study's streams predate the method names)
    *(
        Method(name, label, color, marker, linestyle, runs={"dp_mcmc": run}, streams=_RAISA)
        for name, label, color, marker, linestyle, run in (
            ("hmc", "DP HMC", BLUE, "o", "-", "dp_hmc:run_hmc"),
            ("dpps", "DP penalty", ORANGE, "s", "-", "dp_penalty:run_dpps"),
            ("dppa", "DP penalty OCU+GWMH", GREEN, "^", "-", "dp_penalty:run_dppa"),
            ("mdpps", "minibatch DP penalty", VERMILLION, "v", "--", "dp_minibatch:run_mdpps"),
            ("mdppa", "minibatch DP penalty OCU+GWMH", PURPLE, "D", "--", "dp_minibatch:run_mdppa"),
            ("barker", "DP Barker", BROWN, "P", "-.", "dp_barker:run_barker"),
            ("rwmh_nondp", "RWMH", SKY, "o", "-", "dp_penalty:run_clipped_rwmh"),
            ("hmc_nondp", "HMC", PINK, "s", "-", "dp_hmc:run_clipped_hmc"),
        )
    ),
)


def method(name: str) -> Method:
    """The :class:`Method` called ``name``; a clear error naming the known ones otherwise."""
    try:
        return METHODS[name]
    except KeyError:
        raise KeyError(
            f"unknown method {name!r}; known: {sorted(METHODS)} (dpinfer.methods.METHODS)"
        ) from None


def stream_stage(name: str, chain: int = 0, study: str | None = None) -> str:
    """Seed-key stage of chain ``chain`` of method ``name``: its stage for the first chain,
    ``<stage>_chain<c>`` after it, so adding a chain or a method changes no other draws."""
    return method(name).stage(study) + (f"_chain{chain}" if chain else "")


def sampler_path(model: str, name: str) -> str:
    """``"module:function"`` of the sampler that runs method ``name`` on registry ``model``."""
    runs = method(name).runs
    if model not in runs:
        known = sorted(m.name for m in METHODS.values() if model in m.runs)
        raise ValueError(f"no sampler {name!r} for model {model!r}; known: {known}")
    return runs[model]


def estimator_path(name: str) -> str:
    """``"module:function"`` of the point estimator that fits method ``name`` (chapter 3)."""
    fits = method(name).fits
    if not fits:
        known = sorted(m.name for m in METHODS.values() if m.fits)
        raise ValueError(f"method {name!r} has no point estimator; known: {known}")
    return fits


def load(path: str, package: str) -> Callable:
    """The function a table entry names: ``"module:function"`` within ``package`` (a sampler's
    ``runs`` within dpinfer.samplers, an estimator's ``fits`` within dpinfer.estimators)."""
    module, function = path.split(":")
    return getattr(import_module(f"{package}.{module}"), function)
