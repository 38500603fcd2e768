"""bernstein2020 Chapter 4 (exponential families): experiment runners and figure renderers.

Targets fig4_2 (calibration KS vs n), fig4_3 (empirical CDFs of the posterior quantiles),
fig4_4 (MMD^2 to the non-private posterior vs n) and figB_1 (Gibbs traces).

One trial (Section 4.4.2, after Cook et al. 2006): theta ~ prior, data ~ model, one Laplace
release; every method draws from its posterior and records U = the fraction of its draws below
the true parameter (first category for the multinomial), and, against the non-private draws,
the unbiased MMD^2 with a Gaussian kernel of bandwidth 1. Streams per replicate: ``simulate``
(theta, data), ``release`` (noise), and one ``sample_<method>`` stream per method, so a change
to one method never changes the data, the noise or another method's draws.

Rules call the ``run_*``, ``aggregate`` and ``render_*`` functions through ``run_step``.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ..io import load_npz, save_npz, write_table
from ..diagnostics import ks_critical_value, ks_uniform, mmd2_unbiased, quantile_of_truth
from ..models import expfam
from ..grid import chunk_replicates, fmt_eps
from ..samplers import noise_aware_gibbs as nag
from ..samplers.ops import run_ops_binomial
from ..seeding import rng_for

__all__ = [
    "STUDY",
    "METHODS",
    "methods_for",
    "experiment_name",
    "exponential_bounds",
    "trial",
    "run_trials",
    "run_chunk",
    "aggregate",
    "run_traces",
    "render_fig4_2",
    "render_fig4_3",
    "render_fig4_4",
    "render_figB_1",
]

STUDY = "bernstein2020"
METHODS = ("gibbs", "naive", "ops", "nonprivate")
LABELS = {"gibbs": "Gibbs (noise-aware)", "naive": "Naive", "ops": "OPS", "nonprivate": "Non-private"}
MODEL_TITLES = {"binomial": "Binomial", "multinomial": "Multinomial ($p_1$)", "exponential": "Exponential"}
MMD_METHODS = ("gibbs", "naive")
# Thinning of the exponential Gibbs chain: every EXPONENTIAL_THIN-th iteration is kept, so the
# 2000 + 5000 draws come from 20x as many iterations. Integrated autocorrelation time of lam is
# ~200-300 iterations at n >= 1000, eps = 0.01 (missing information ~98%), so 5000 unthinned draws
# have an ESS of ~20 and the quantile U of each trial is noisy (docs/deviations.md).
# ``exponential.thin`` in the config sets it (default below).
EXPONENTIAL_THIN = 20
log = logging.getLogger("dpinfer.bernstein2020_ch4")


def methods_for(model: str) -> tuple[str, ...]:
    """Methods run on a model: OPS only for the binomial (Section 4.4.1)."""
    return METHODS if model == "binomial" else tuple(m for m in METHODS if m != "ops")


def experiment_name(model: str, n: int, epsilon: float) -> str:
    return f"ch4_{model}_n{int(n)}_eps{fmt_eps(epsilon)}"


def exponential_bounds(cfg_exp: dict, lam_true: float) -> tuple[float, float]:
    """Truncation [a, b]: central mass of the prior predictive (public) or of Exp(lam_true) (oracle)."""
    mass = float(cfg_exp["truncation_mass"])
    if cfg_exp["truncation"] == "prior_predictive":
        return expfam.prior_predictive_bounds(cfg_exp["prior_shape"], cfg_exp["prior_rate"], mass)
    if cfg_exp["truncation"] == "oracle":
        return expfam.oracle_bounds(lam_true, mass)
    raise ValueError(f"unknown truncation rule {cfg_exp['truncation']!r}")


def _thin(draws: np.ndarray, m: int) -> np.ndarray:
    step = max(1, draws.shape[0] // m)
    return draws[::step][:m]


# ----------------------------------------------------------------------------- one trial
def _binomial_release(cfg: dict, n: int, epsilon: float, sim, rel):
    """Draw theta and s ~ Binom(n, theta), release y = s + Laplace: (prior, theta, s, y, scale)."""
    c = cfg["binomial"]
    prior = (float(c["prior"][0]), float(c["prior"][1]))
    truth, s = expfam.simulate_binomial(sim, n, *prior)
    scale = float(c["sensitivity"]) / epsilon
    return prior, truth, s, s + rel.laplace(0.0, scale), scale


def _exponential_release(cfg: dict, n: int, epsilon: float, sim, rel):
    """Draw lambda and x, release the truncated sum plus Laplace noise.

    Returns (prior, lambda, x, (a, b), scale, noise, y); the noise is returned because Naive
    reuses the same draw on the untruncated sum."""
    c = cfg["exponential"]
    prior = (float(c["prior_shape"]), float(c["prior_rate"]))
    truth, x = expfam.simulate_exponential(sim, n, *prior)
    a, b = exponential_bounds(c, truth)
    scale = expfam.truncation_sensitivity(a, b, c["sensitivity"]) / epsilon
    noise = rel.laplace(0.0, scale)
    return prior, truth, x, (a, b), scale, noise, float(x[(x >= a) & (x <= b)].sum()) + noise


def trial(model: str, n: int, epsilon: float, replicate: int, cfg: dict, seed: int) -> dict:
    """Run every method of one calibration trial; return U per method, MMD^2, truth and timing."""
    exp_name = experiment_name(model, n, epsilon)

    def rng(stage):
        return rng_for(seed, STUDY, exp_name, replicate, stage)

    kept, burnin = int(cfg["iterations"]), int(cfg["burnin"])
    total = kept + burnin
    sim, rel = rng("simulate"), rng("release")
    draws = {}
    if model == "binomial":
        prior, truth, s, y, scale = _binomial_release(cfg, n, epsilon, sim, rel)
        chain = nag.run_binomial(y, n, prior, scale, total, rng("sample_gibbs"))
        draws["gibbs"] = chain.draws[burnin:]
        yc = min(max(y, 0.0), float(n))
        draws["naive"] = rng("sample_naive").beta(*expfam.beta_posterior(*prior, yc, n), size=kept)[:, None]
        draws["nonprivate"] = rng("sample_nonprivate").beta(*expfam.beta_posterior(*prior, s, n), size=kept)[:, None]
        o = cfg["ops"]
        draws["ops"] = run_ops_binomial(s, n, prior, epsilon, rng("sample_ops"), n_samples=int(o["samples"]),
                                        support_lower=float(o["support_lower"]), tempering=o["tempering"]).draws
        truth_vec = np.array([truth])
    elif model == "multinomial":
        c = cfg["multinomial"]
        k = int(c["categories"])
        alpha = np.full(k, float(c["prior_concentration"]))
        p, counts = expfam.simulate_multinomial(sim, n, alpha)
        scale = float(c["sensitivity"]) / epsilon
        y = counts[: k - 1] + rel.laplace(0.0, scale, size=k - 1)
        chain = nag.run_multinomial(y, n, alpha, scale, total, rng("sample_gibbs"))
        draws["gibbs"] = chain.draws[burnin:]
        # naive: the noisy counts as if exact; the last count is n minus the released ones;
        # Dirichlet parameters floored at 1e-3 as in the released code
        noisy = np.append(y, n - y.sum())
        a_naive = np.maximum(expfam.dirichlet_posterior(alpha, noisy), 1e-3)
        draws["naive"] = rng("sample_naive").dirichlet(a_naive, size=kept)
        draws["nonprivate"] = rng("sample_nonprivate").dirichlet(expfam.dirichlet_posterior(alpha, counts), size=kept)
        truth = float(p[0])
        truth_vec = p
    elif model == "exponential":
        c = cfg["exponential"]
        prior, truth, x, (a, b), scale, noise, y = _exponential_release(cfg, n, epsilon, sim, rel)
        chain = nag.run_truncated_exponential(y, n, prior, (a, b), scale, total, rng("sample_gibbs"),
                                              thin=int(c.get("thin", EXPONENTIAL_THIN)))
        draws["gibbs"] = chain.draws[burnin:]
        # naive "cheats" (Section 4.4.1): the untruncated sum with the same noise draw, clamped at 0
        y_naive = max(float(x.sum()) + noise, 0.0)
        sh, rt = expfam.gamma_posterior(*prior, y_naive, n)
        draws["naive"] = rng("sample_naive").gamma(sh, 1.0 / rt, size=kept)[:, None]
        sh, rt = expfam.gamma_posterior(*prior, float(x.sum()), n)
        draws["nonprivate"] = rng("sample_nonprivate").gamma(sh, 1.0 / rt, size=kept)[:, None]
        truth_vec = np.array([truth])
    else:
        raise ValueError(f"unknown model {model!r}")

    u = {m: float(quantile_of_truth(draws[m][:, 0], truth)[0]) for m in methods_for(model)}
    ref = _thin(draws["nonprivate"], int(cfg["mmd_draws"]))
    bw = float(cfg["mmd_bandwidth"])
    mmd = {m: mmd2_unbiased(_thin(draws[m], int(cfg["mmd_draws"])), ref, bandwidth=bw) for m in MMD_METHODS}
    return {"u": u, "mmd": mmd, "truth": truth, "truth_vec": truth_vec,
            "gibbs_cpu": float(chain.info["cpu_seconds"]), "gibbs_iterations": total}


def run_trials(model: str, n: int, epsilon: float, replicates, cfg: dict, seed: int) -> dict:
    """Arrays over a set of replicates: u (methods x reps), mmd (MMD methods x reps), truth, cpu."""
    reps = list(replicates)
    methods = methods_for(model)
    u = np.empty((len(methods), len(reps)))
    mmd = np.empty((len(MMD_METHODS), len(reps)))
    truth = np.empty(len(reps))
    cpu = np.empty(len(reps))
    for j, r in enumerate(reps):
        res = trial(model, n, epsilon, r, cfg, seed)
        u[:, j] = [res["u"][m] for m in methods]
        mmd[:, j] = [res["mmd"][m] for m in MMD_METHODS]
        truth[j] = res["truth"]
        cpu[j] = res["gibbs_cpu"]
    return {"methods": np.array(methods), "mmd_methods": np.array(MMD_METHODS), "u": u, "mmd": mmd,
            "truth": truth, "gibbs_cpu": cpu, "replicates": np.array(reps, dtype=np.int64),
            "gibbs_iterations": np.int64(int(cfg["iterations"]) + int(cfg["burnin"]))}


def run_chunk(input, output, *, seed, model, n, epsilon, chunk, cfg):
    """Rule step: one chunk of calibration trials for one (model, n, epsilon) -> npz."""
    n, epsilon, chunk = int(n), float(epsilon), int(chunk)
    reps = chunk_replicates(chunk, int(cfg["replicates"]), int(cfg["chunk_size"]))
    log.info("%s n=%d eps=%s replicates %d..%d", model, n, epsilon, reps.start, reps.stop - 1)
    res = run_trials(model, n, epsilon, reps, cfg, int(seed))
    save_npz(output.runs, model=np.array(model), n=np.int64(n), epsilon=np.float64(epsilon), **res)


# ----------------------------------------------------------------------------- aggregate
def _key(model, n, eps, what):
    return f"{model}__n{int(n)}__eps{fmt_eps(eps)}__{what}"


def aggregate(input, output, *, cfg):
    """Rule step: merge chunk files -> summary npz and a calibration/utility table (csv + md)."""
    groups = {}
    for path in input.runs:
        d = load_npz(path)
        groups.setdefault((str(d["model"]), int(d["n"]), float(d["epsilon"])), []).append(d)
    arrays, rows = {}, []
    M = int(cfg["replicates"])
    for (model, n, eps) in sorted(groups):
        parts = sorted(groups[(model, n, eps)], key=lambda d: int(d["replicates"][0]))
        reps = np.concatenate([d["replicates"] for d in parts])
        if not np.array_equal(reps, np.arange(M)):
            raise ValueError(f"{model} n={n} eps={eps}: replicates {reps.min()}..{reps.max()} do not cover 0..{M - 1}")
        methods = [str(m) for m in parts[0]["methods"]]
        u = np.concatenate([d["u"] for d in parts], axis=1)
        mmd = np.concatenate([d["mmd"] for d in parts], axis=1)
        for i, m in enumerate(methods):
            arrays[_key(model, n, eps, f"u_{m}")] = u[i]
        for i, m in enumerate(MMD_METHODS):
            arrays[_key(model, n, eps, f"mmd_{m}")] = mmd[i]
        row = {"model": model, "n": n, "epsilon": fmt_eps(eps)}
        for m in METHODS:
            row[f"ks_{m}"] = ks_uniform(u[methods.index(m)]) if m in methods else ""
        for i, m in enumerate(MMD_METHODS):
            row[f"mmd_{m}"] = float(mmd[i].mean())
        rows.append(row)
    save_npz(output.summary, **arrays)
    cols = ["model", "n", "epsilon"] + [f"ks_{m}" for m in METHODS] + [f"mmd_{m}" for m in MMD_METHODS]
    notes = (f"KS statistic of the posterior quantiles of the true parameter over M = {M} trials "
             f"(5% critical value {ks_critical_value(M):.3f}); mean unbiased MMD^2 (bandwidth "
             f"{cfg['mmd_bandwidth']}) to the non-private posterior. The thesis reports these only as "
             "figures (4.2, 4.4): no paper values to print beside them. Timings are in the run files and "
             "benchmarks/, never in this table, so it is byte-identical across runs.")
    write_table(output.csv, output.md, rows, cols, title="bernstein2020 chapter 4: calibration and utility",
                notes=notes, digits=4)


# ----------------------------------------------------------------------------- traces (fig B.1)
def run_traces(input, output, *, seed, cfg):
    """Rule step: Gibbs chains from the prior for binomial and exponential (Appendix B.5)."""
    tc = cfg["trace"]
    n, eps, iters, chains = int(tc["n"]), float(tc["epsilon"]), int(tc["iterations"]), int(tc["chains"])
    out = {}
    for model in ("binomial", "exponential"):
        tr = np.empty((chains, iters))
        truth = np.empty(chains)
        for c in range(chains):
            def rng(stage):
                return rng_for(int(seed), STUDY, f"ch4_trace_{model}", c, stage)
            sim, rel = rng("simulate"), rng("release")
            if model == "binomial":
                prior, theta, _, y, scale = _binomial_release(cfg, n, eps, sim, rel)
                tr[c] = nag.run_binomial(y, n, prior, scale, iters, rng("sample_gibbs")).draws[:, 0]
            else:
                prior, theta, _, (a, b_), scale, _, y = _exponential_release(cfg, n, eps, sim, rel)
                # traces start from the prior (Fig. B.1 shows burn-in from prior starts)
                tr[c] = nag.run_truncated_exponential(y, n, prior, (a, b_), scale, iters, rng("sample_gibbs"),
                                                      init="prior").draws[:, 0]
            truth[c] = theta
        out[f"{model}_trace"] = tr
        out[f"{model}_truth"] = truth
    save_npz(output.traces, n=np.int64(n), epsilon=np.float64(eps), **out)


# ----------------------------------------------------------------------------- figures
def _style(method):
    from ..plotting import COLORS

    idx = {"gibbs": 0, "naive": 1, "ops": 2, "nonprivate": 7}[method]
    ls = {"gibbs": "-", "naive": "--", "ops": "-.", "nonprivate": ":"}[method]
    mk = {"gibbs": "o", "naive": "s", "ops": "^", "nonprivate": "x"}[method]
    return {"color": COLORS[idx], "linestyle": ls, "marker": mk, "markersize": 3.5}


def render_fig4_2(input, output, *, cfg):
    """Fig. 4.2: KS statistic vs n; rows epsilon, columns models."""
    from ..plotting import save_figure, subplots

    d = load_npz(input.summary)
    eps_list, n_grid, models = cfg["epsilons"], cfg["n_grid"], cfg["models"]
    M = int(cfg["replicates"])
    fig, axes = subplots(len(eps_list), len(models), width=7.5, height=2.2, squeeze=False, sharey=True)
    for r, eps in enumerate(eps_list):
        for c, model in enumerate(models):
            ax = axes[r][c]
            for m in methods_for(model):
                ks = [ks_uniform(d[_key(model, n, eps, f"u_{m}")]) for n in n_grid]
                ax.plot(n_grid, ks, label=LABELS[m], **_style(m))
            ax.axhline(ks_critical_value(M), color="0.5", lw=0.8, ls=(0, (1, 2)), label="KS 5% critical value")
            ax.set_xscale("log")
            ax.set_title(f"{MODEL_TITLES[model]}, $\\epsilon$={fmt_eps(eps)}")
            if r == len(eps_list) - 1:
                ax.set_xlabel("number of individuals n")
            if c == 0:
                ax.set_ylabel("KS statistic")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, output.pdf, output.png)


def render_fig4_3(input, output, *, cfg):
    """Fig. 4.3: empirical CDFs of the posterior quantiles U at the ECDF setting."""
    from ..plotting import save_figure, subplots

    d = load_npz(input.summary)
    n, eps, models = int(cfg["ecdf"]["n"]), float(cfg["ecdf"]["epsilon"]), cfg["models"]
    fig, axes = subplots(1, len(models), width=7.5, height=2.6, squeeze=False)
    for c, model in enumerate(models):
        ax = axes[0][c]
        for m in methods_for(model):
            u = np.sort(d[_key(model, n, eps, f"u_{m}")])
            st = _style(m)
            ax.step(np.concatenate([[0.0], u, [1.0]]), np.concatenate([[0.0], np.arange(1, u.size + 1) / u.size, [1.0]]),
                    where="post", color=st["color"], linestyle=st["linestyle"], label=LABELS[m])
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
        ax.set_title(f"{MODEL_TITLES[model]}\nn={n}, $\\epsilon$={fmt_eps(eps)}")
        ax.set_xlabel("quantile of true parameter U")
        if c == 0:
            ax.set_ylabel("empirical CDF")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0][0].legend(loc="upper left", frameon=False)
    save_figure(fig, output.pdf, output.png)


def render_fig4_4(input, output, *, cfg):
    """Fig. 4.4: mean unbiased MMD^2 to the non-private posterior vs n (binomial, multinomial)."""
    from ..plotting import save_figure, subplots

    d = load_npz(input.summary)
    eps_list, n_grid = cfg["epsilons"], cfg["n_grid"]
    models = [m for m in cfg["models"] if m in ("binomial", "multinomial")]
    fig, axes = subplots(len(eps_list), max(1, len(models)), width=6.0, height=2.2, squeeze=False)
    for r, eps in enumerate(eps_list):
        for c, model in enumerate(models):
            ax = axes[r][c]
            for m in MMD_METHODS:
                vals = [d[_key(model, n, eps, f"mmd_{m}")] for n in n_grid]
                mean = np.array([v.mean() for v in vals])
                se = np.array([v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else 0.0 for v in vals])
                st = _style(m)
                ax.errorbar(n_grid, mean, yerr=2 * se, label=LABELS[m], capsize=2, **st)
            ax.set_xscale("log")
            ax.set_yscale("symlog", linthresh=1e-5)
            ax.set_title(f"{model.capitalize()} (whole parameter), $\\epsilon$={fmt_eps(eps)}")
            if r == len(eps_list) - 1:
                ax.set_xlabel("number of individuals n")
            if c == 0:
                ax.set_ylabel("MMD$^2$ to non-private")
    axes[0][0].legend(frameon=False)
    save_figure(fig, output.pdf, output.png)


def render_figB_1(input, output, *, cfg):
    """Fig. B.1: Gibbs traces from the prior with the true parameter dashed."""
    from ..plotting import COLORS, save_figure, subplots

    d = load_npz(input.traces)
    fig, axes = subplots(1, 2, width=7.0, height=2.6, squeeze=False)
    for c, (model, name) in enumerate((("binomial", "$\\theta$"), ("exponential", "$\\lambda$"))):
        ax = axes[0][c]
        tr, truth = d[f"{model}_trace"], d[f"{model}_truth"]
        for k in range(tr.shape[0]):
            ax.plot(np.arange(1, tr.shape[1] + 1), tr[k], color=COLORS[k % len(COLORS)], lw=0.8)
            ax.axhline(truth[k], color=COLORS[k % len(COLORS)], ls="--", lw=0.8)
        ax.set_title(f"{MODEL_TITLES[model]}: n={int(d['n'])}, $\\epsilon$={fmt_eps(float(d['epsilon']))}")
        ax.set_xlabel("iteration")
        ax.set_ylabel(name)
    save_figure(fig, output.pdf, output.png)
