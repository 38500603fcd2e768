"""bernstein2020, Chapter 5: private Bayesian linear regression (Figs 5.4-5.9).

Pipeline steps (each called by one Snakemake rule through ``dpinfer.pipeline.run_step``):

- :func:`run_synthetic_chunk`: for a chunk of trials of one (n, epsilon) setting, draw
  parameters and data from the model, release the statistics, run every method and keep
  per-trial summaries (posterior quantile of the truth, 95% coverage, MMD^2 to Non-Private,
  CPU seconds).
- :func:`summarise_synthetic`: all chunks -> one summary npz and a KS/coverage/MMD table.
- :func:`plot_synthetic`: Figs 5.4-5.8 from the summary.
- :func:`run_cirrhosis_chunk` / :func:`plot_fig5_9`: posterior-predictive coverage on the
  cirrhosis data (Sec. 5.3.3).

Random streams (``rng_for``): "simulate" depends on (n, trial) only, so the epsilon panels share
data sets; "release" on (n, epsilon, trial); each method samples from its own stream.
"""

from __future__ import annotations

import csv
import logging
import math

import numpy as np

from ..io import load_npz, save_npz, write_table
from ..mechanisms import Laplace
from ..diagnostics import central_interval, ks_critical_value, ks_uniform, mmd2_unbiased, quantile_of_truth
from ..models.linreg_nig import (
    NIGPrior,
    NIWPrior,
    nig_draws,
    project_statistics,
    sensitivity_moments,
    sensitivity_statistics,
    simulate_dataset,
    sufficient_statistics,
)
from ..grid import chunk_replicates, fmt_eps
from ..plotting import COLORS, save_figure, subplots
from ..samplers.gibbs_ss import clean_noisy_moments, run_gibbs_ss
from ..samplers.mcmc_ind import run_mcmc_ind
from ..seeding import rng_for

log = logging.getLogger("dpinfer.bernstein2020_ch5")

STUDY = "bernstein2020"
METHODS = ("non_private", "naive", "mcmc_ind", "gibbs_ss_noisy", "gibbs_ss_prior", "gibbs_ss_update")
LABELS = {
    "non_private": "Non-Private",
    "naive": "Naive",
    "mcmc_ind": "MCMC-Ind",
    "gibbs_ss_noisy": "Gibbs-SS-Noisy",
    "gibbs_ss_prior": "Gibbs-SS-Prior",
    "gibbs_ss_update": "Gibbs-SS-Update",
}
PARAMS = ("theta_0 (slope)", "theta_1 (intercept)", "sigma^2")
PARAM_TEX = (r"$\theta_0$ (slope)", r"$\theta_1$ (intercept)", r"$\sigma^2$")


# ----------------------------------------------------------------------------- settings
def setting_name(n: int, eps: float) -> str:
    return f"n{int(n)}_eps{fmt_eps(eps)}"


def synthetic_settings(cfg: dict) -> list[tuple[int, float]]:
    """(n, eps) pairs: every n at the vs-n epsilon, every epsilon at the vs-epsilon n."""
    syn = cfg["synthetic"]
    pairs = [(int(n), float(syn["eps_vs_n"])) for n in syn["n_values"]]
    pairs += [(int(syn["n_vs_eps"]), float(e)) for e in syn["epsilons"]]
    out = []
    for p in pairs:
        if p not in out:
            out.append(p)
    return sorted(out)


def parse_setting(name: str) -> tuple[int, float]:
    n_part, eps_part = name.split("_eps")
    return int(n_part[1:]), float(eps_part)


def gibbs_burnin(cfg: dict, n: int) -> int:
    g = cfg["gibbs"]
    return int(g["burnin_large_n"]) if n >= int(g["large_n"]) else int(g["burnin"])


# ----------------------------------------------------------------------------- release
def release_statistics(rng, x, y, epsilon: float, bounds) -> dict:
    """The three releases used by the methods, drawn in a fixed order from one stream.

    - ``z_full``: s + Lap(Delta_s / eps) (Naive, MCMC-Ind, Gibbs-SS-Prior/Update);
    - ``z_half`` and ``moment_sums``: s at eps/2 and the sums of x^k, k = 1..4, at eps/2 with
      sensitivity D w^4 (Gibbs-SS-Noisy, budget split evenly).
    n is public and is not perturbed.
    """
    w = float(bounds[1]) - float(bounds[0])
    s = sufficient_statistics(x, y)
    d_s = sensitivity_statistics(w, w)
    d_m = sensitivity_moments(w)
    full = Laplace.calibrated(epsilon, d_s)
    half = Laplace.calibrated(epsilon / 2.0, d_s)
    mom = Laplace.calibrated(epsilon / 2.0, d_m)
    sums = np.array([np.sum(x**k) for k in range(1, 5)])
    return {
        "s": s,
        "z_full": full.release(rng, s),
        "scale_full": full.scale,
        "z_half": half.release(rng, s),
        "scale_half": half.scale,
        "moment_sums": mom.release(rng, sums),
    }


def run_method(method: str, rel: dict, n: int, prior: NIGPrior, data_prior: NIWPrior, bounds,
               rng, *, conjugate_draws: int, gibbs_burnin: int, gibbs_keep: int,
               mcmc_burnin: int, mcmc_keep: int):
    """Posterior draws (k, 3) of one method and its CPU seconds."""
    import time

    t0 = time.process_time()
    if method == "non_private":
        draws = nig_draws(rng, rel["s"], n, prior, conjugate_draws)
    elif method == "naive":
        draws = nig_draws(rng, project_statistics(rel["z_full"], n), n, prior, conjugate_draws)
    elif method == "mcmc_ind":
        draws = run_mcmc_ind(rel["z_full"], n, rel["scale_full"], prior, data_prior, rng=rng,
                             burnin=mcmc_burnin, keep=mcmc_keep).draws
    elif method == "gibbs_ss_noisy":
        moments = clean_noisy_moments(rel["moment_sums"], n, bounds)
        draws = run_gibbs_ss(rel["z_half"], n, rel["scale_half"], method, prior, rng=rng,
                             burnin=gibbs_burnin, keep=gibbs_keep, moments=moments).draws
    elif method in ("gibbs_ss_prior", "gibbs_ss_update"):
        draws = run_gibbs_ss(rel["z_full"], n, rel["scale_full"], method, prior, rng=rng,
                             burnin=gibbs_burnin, keep=gibbs_keep, data_prior=data_prior).draws
    else:
        raise ValueError(f"unknown method {method!r}")
    return draws, time.process_time() - t0


def thin(draws: np.ndarray, m: int) -> np.ndarray:
    """m draws evenly spaced over the chain (all of them if there are fewer)."""
    if draws.shape[0] <= m:
        return draws
    idx = np.linspace(0, draws.shape[0] - 1, m).round().astype(int)
    return draws[idx]


# ----------------------------------------------------------------------------- synthetic runs
def run_synthetic_chunk(input, output, *, seed: int, setting: str, chunk: int, cfg: dict) -> None:
    """One chunk of calibration/utility trials for one (n, epsilon) setting."""
    n, eps = parse_setting(setting)
    syn = cfg["synthetic"]
    prior = NIGPrior.from_config(cfg["prior"])
    data_prior = NIWPrior.from_config(cfg["data_prior"])
    bounds = syn["bounds"]
    methods = [m for m in cfg["methods"] if m != "mcmc_ind" or n <= int(cfg["mcmc_ind"]["max_n"])]
    reps = chunk_replicates(chunk, int(syn["trials"]), int(cfg["chunk_size"]))
    k_m = len(methods)
    r = len(reps)
    truth = np.empty((r, 3))
    u = np.empty((k_m, r, 3))
    cover = np.zeros((k_m, r, 3), dtype=bool)
    mmd = np.zeros((k_m, r, 3))
    cpu = np.empty((k_m, r))
    m_mmd = int(cfg["mmd"]["draws"])
    h = float(cfg["mmd"]["bandwidth"])
    level = float(cfg["credible_level"])
    kw = dict(conjugate_draws=int(cfg["conjugate_draws"]), gibbs_burnin=gibbs_burnin(cfg, n),
              gibbs_keep=int(cfg["gibbs"]["keep"]), mcmc_burnin=int(cfg["mcmc_ind"]["burnin"]),
              mcmc_keep=int(cfg["mcmc_ind"]["keep"]))
    for j, rep in enumerate(reps):
        sim = simulate_dataset(rng_for(seed, STUDY, f"ch5_synthetic_n{n}", rep, "simulate"), n, prior, data_prior)
        exp = f"ch5_synthetic_{setting}"
        rel = release_statistics(rng_for(seed, STUDY, exp, rep, "release"), sim["x"], sim["y"], eps, bounds)
        truth[j] = [sim["theta"][0], sim["theta"][1], sim["sigma2"]]
        reference = None
        for i, method in enumerate(methods):
            rng = rng_for(seed, STUDY, exp, rep, f"sample_{method}")
            draws, cpu[i, j] = run_method(method, rel, n, prior, data_prior, bounds, rng, **kw)
            if not np.all(np.isfinite(draws)):
                raise FloatingPointError(f"{method} produced non-finite draws in {setting} trial {rep}")
            u[i, j] = quantile_of_truth(draws, truth[j])
            lo, hi = central_interval(draws, level)
            cover[i, j] = (lo <= truth[j]) & (truth[j] <= hi)
            if method == "non_private":
                reference = thin(draws, m_mmd)
            elif reference is not None:
                mine = thin(draws, m_mmd)
                for p in range(3):
                    mmd[i, j, p] = mmd2_unbiased(mine[:, p], reference[:, p], bandwidth=h)
        log.info("%s trial %d done", setting, rep)
    save_npz(output.summary, methods=np.array(methods), reps=np.array(list(reps)), truth=truth,
             u=u, cover=cover, mmd=mmd, cpu=cpu, n=np.array(n), eps=np.array(eps))


def summarise_synthetic(input, output, *, cfg: dict) -> None:
    """Merge all chunks into one npz (per setting: u, cover, mmd, cpu) and a summary table."""
    settings = synthetic_settings(cfg)
    by_setting = {}
    for path in input.chunks:
        d = load_npz(path)
        key = setting_name(int(d["n"]), float(d["eps"]))
        by_setting.setdefault(key, []).append(d)
    arrays = {}
    rows = []
    for n, eps in settings:
        key = setting_name(n, eps)
        parts = sorted(by_setting[key], key=lambda d: int(d["reps"][0]))
        methods = [str(m) for m in parts[0]["methods"]]
        u = np.concatenate([p["u"] for p in parts], axis=1)
        cover = np.concatenate([p["cover"] for p in parts], axis=1)
        mmd = np.concatenate([p["mmd"] for p in parts], axis=1)
        cpu = np.concatenate([p["cpu"] for p in parts], axis=1)
        arrays[f"{key}__methods"] = np.array(methods)
        arrays[f"{key}__u"] = u
        arrays[f"{key}__cover"] = cover
        arrays[f"{key}__mmd"] = mmd
        arrays[f"{key}__cpu"] = cpu
        for i, m in enumerate(methods):
            for p, pname in enumerate(PARAMS):
                rows.append({"n": n, "epsilon": fmt_eps(eps), "method": LABELS[m], "parameter": pname,
                             "ks": ks_uniform(u[i, :, p]), "coverage95": float(cover[i, :, p].mean()),
                             "mmd2": float(mmd[i, :, p].mean()) if m != "non_private" else 0.0})
    save_npz(output.summary, **arrays)
    trials = int(cfg["synthetic"]["trials"])
    write_table(output.csv, output.md, rows,
                ["n", "epsilon", "method", "parameter", "ks", "coverage95", "mmd2"],
                title="bernstein2020 Ch. 5 synthetic: calibration KS, 95% coverage, mean MMD^2 to Non-Private",
                notes=f"{trials} trials per setting; KS critical value (alpha = 0.05) "
                      f"{ks_critical_value(trials):.3f}. The thesis gives these only as plots (Figs 5.4, 5.6, 5.7).",
                digits=4)


# ----------------------------------------------------------------------------- synthetic figures
def _method_style(method: str) -> dict:
    return {"color": COLORS[METHODS.index(method) % len(COLORS)], "label": LABELS[method],
            "marker": "os^vDx"[METHODS.index(method)], "markersize": 3.5}


def _metric(summary: dict, key: str, metric: str):
    methods = [str(m) for m in summary[f"{key}__methods"]]
    if metric == "ks":
        u = summary[f"{key}__u"]
        vals = np.array([[ks_uniform(u[i, :, p]) for p in range(3)] for i in range(len(methods))])
    elif metric == "coverage":
        vals = summary[f"{key}__cover"].mean(axis=1)
    elif metric == "mmd":
        vals = summary[f"{key}__mmd"].mean(axis=1)
    else:
        raise ValueError(metric)
    return methods, vals


def _two_panel_rows(summary, cfg, metric, ylabel, fig, axes, skip=()):
    syn = cfg["synthetic"]
    eps0, n0 = float(syn["eps_vs_n"]), int(syn["n_vs_eps"])
    rows = [("n", [(int(n), eps0) for n in syn["n_values"]], f"n (epsilon = {fmt_eps(eps0)})"),
            ("eps", [(n0, float(e)) for e in syn["epsilons"]], f"epsilon (n = {n0})")]
    for r, (axis, pairs, xlabel) in enumerate(rows):
        table = {}
        for n, e in pairs:
            methods, vals = _metric(summary, setting_name(n, e), metric)
            for i, m in enumerate(methods):
                table.setdefault(m, []).append((n if axis == "n" else e, vals[i]))
        for p in range(3):
            ax = axes[r, p]
            for m in METHODS:
                if m not in table or m in skip:
                    continue
                xs = [x for x, _ in table[m]]
                ys = [float(v[p]) for _, v in table[m]]
                ax.plot(xs, ys, **_method_style(m))
            ax.set_xscale("log")
            ax.set_xlabel(xlabel)
            if r == 0:
                ax.set_title(PARAM_TEX[p])
            if p == 0:
                ax.set_ylabel(ylabel)
    return axes


def plot_synthetic(input, output, *, figure: str, cfg: dict) -> None:
    """Figs 5.4 (KS), 5.5 (QQ), 5.6 (95% coverage), 5.7 (MMD^2), 5.8 (runtime)."""
    summary = load_npz(input.summary)
    syn = cfg["synthetic"]
    trials = int(syn["trials"])
    if figure in ("fig5_4", "fig5_6", "fig5_7"):
        fig, axes = subplots(2, 3, width=7.5, height=2.3, squeeze=False)
        if figure == "fig5_4":
            _two_panel_rows(summary, cfg, "ks", "KS statistic", fig, axes)
            for ax in axes.ravel():
                ax.axhline(ks_critical_value(trials), color="0.5", ls=":", lw=0.8)
            title = f"Calibration: KS of posterior quantiles ({trials} trials; dotted: 5% critical value)"
        elif figure == "fig5_6":
            _two_panel_rows(summary, cfg, "coverage", "95% CI coverage", fig, axes)
            se = math.sqrt(0.95 * 0.05 / trials)
            for ax in axes.ravel():
                ax.axhline(0.95, color="0.3", ls="--", lw=0.8)
                ax.axhspan(0.95 - 2 * se, 0.95 + 2 * se, color="0.85", zorder=0)
            title = f"95% credible-interval coverage ({trials} trials; band: +-2 binomial s.e.)"
        else:
            _two_panel_rows(summary, cfg, "mmd", "mean MMD$^2$ to Non-Private", fig, axes, skip=("non_private",))
            title = (f"Utility: unbiased MMD$^2$ (RBF, bandwidth {cfg['mmd']['bandwidth']}) "
                     f"to the Non-Private posterior, mean over trials")
        fig.suptitle(title, fontsize=9)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=7, frameon=False)
        fig.tight_layout(rect=(0, 0.09, 1, 0.96))
    elif figure == "fig5_5":
        key = setting_name(int(syn["n_vs_eps"]), float(syn["eps_vs_n"]))
        methods = [str(m) for m in summary[f"{key}__methods"]]
        u = summary[f"{key}__u"]
        fig, axes = subplots(1, 3, width=7.5, height=2.6, squeeze=False)
        grid = np.linspace(0, 1, 201)
        for p in range(3):
            ax = axes[0, p]
            ax.plot([0, 1], [0, 1], color="0.5", lw=0.8, ls="--")
            for i, m in enumerate(methods):
                ecdf = np.searchsorted(np.sort(u[i, :, p]), grid, side="right") / u.shape[1]
                st = _method_style(m)
                ax.plot(grid, ecdf, color=st["color"], label=st["label"])
            ax.set_title(PARAM_TEX[p])
            ax.set_xlabel("uniform quantile")
            if p == 0:
                ax.set_ylabel("empirical CDF of u")
        n0, e0 = int(syn["n_vs_eps"]), float(syn["eps_vs_n"])
        fig.suptitle(f"QQ plot of posterior quantiles, n = {n0}, epsilon = {fmt_eps(e0)} ({trials} trials)", fontsize=9)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=7, frameon=False)
        fig.tight_layout(rect=(0, 0.11, 1, 0.95))
    elif figure == "fig5_8":
        eps0 = float(syn["eps_vs_n"])
        fig, axes = subplots(1, 1, width=4.5, height=3.0, squeeze=False)
        ax = axes[0, 0]
        table = {}
        for n in syn["n_values"]:
            key = setting_name(int(n), eps0)
            methods = [str(m) for m in summary[f"{key}__methods"]]
            cpu = summary[f"{key}__cpu"]
            for i, m in enumerate(methods):
                table.setdefault(m, []).append((int(n), max(float(cpu[i].mean()), 1e-6)))
        for m in METHODS:
            if m in table:
                xs, ys = zip(*table[m])
                ax.plot(xs, ys, **_method_style(m))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("CPU seconds per trial (mean)")
        ax.set_title(f"Runtime, epsilon = {fmt_eps(eps0)} (process time, one core)")
        ax.legend(fontsize=7, frameon=False)
    else:
        raise ValueError(f"unknown figure {figure!r}")
    save_figure(fig, output.pdf, output.png)


# ----------------------------------------------------------------------------- cirrhosis (Fig 5.9)
def load_cirrhosis(path, covariate: str, response: str):
    """Covariate and response columns, min-max scaled to [0, 1] over all rows (Sec. 5.3.3)."""
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    x = np.array([float(r[covariate]) for r in rows])
    y = np.array([float(r[response]) for r in rows])

    def scale(v):
        return (v - v.min()) / (v.max() - v.min())

    return scale(x), scale(y)


def predictive_hits(rng, draws, x_test, y_test, levels) -> np.ndarray:
    """(len(levels),) counts of test points inside the central posterior-predictive intervals."""
    hits = np.zeros(len(levels), dtype=np.int64)
    for xs, ys in zip(x_test, y_test):
        pred = draws[:, 0] * xs + draws[:, 1] + np.sqrt(draws[:, 2]) * rng.standard_normal(draws.shape[0])
        for k, lev in enumerate(levels):
            lo, hi = np.quantile(pred, [(1 - lev) / 2, (1 + lev) / 2])
            hits[k] += int(lo <= ys <= hi)
    return hits


def run_cirrhosis_chunk(input, output, *, seed: int, epsilon: float, chunk: int, cfg: dict) -> None:
    """Posterior-predictive coverage of the methods on a chunk of random train/test splits."""
    cir = cfg["cirrhosis"]
    x, y = load_cirrhosis(input.data, cir["covariate"], cir["response"])
    prior = NIGPrior.from_config(cir["prior"])
    data_prior = NIWPrior.from_config(cir["data_prior"])
    bounds = (0.0, 1.0)
    levels = [float(v) for v in cir["levels"]]
    methods = list(cir["methods"])
    splits = chunk_replicates(chunk, int(cir["splits"]), int(cir["chunk_size"]))
    n_train = int(cir["n_train"])
    hits = np.zeros((len(methods), len(splits), len(levels)), dtype=np.int64)
    n_test = np.zeros(len(splits), dtype=np.int64)
    kw = dict(conjugate_draws=int(cfg["conjugate_draws"]), gibbs_burnin=int(cfg["gibbs"]["burnin"]),
              gibbs_keep=int(cfg["gibbs"]["keep"]), mcmc_burnin=int(cfg["mcmc_ind"]["burnin"]),
              mcmc_keep=int(cfg["mcmc_ind"]["keep"]))
    exp = f"ch5_cirrhosis_eps{fmt_eps(epsilon)}"
    for j, split in enumerate(splits):
        perm = rng_for(seed, STUDY, "ch5_cirrhosis", split, "split").permutation(x.size)
        tr, te = perm[:n_train], perm[n_train:]
        rel = release_statistics(rng_for(seed, STUDY, exp, split, "release"), x[tr], y[tr], epsilon, bounds)
        n_test[j] = te.size
        for i, method in enumerate(methods):
            rng = rng_for(seed, STUDY, exp, split, f"sample_{method}")
            draws, _ = run_method(method, rel, n_train, prior, data_prior, bounds, rng, **kw)
            hits[i, j] = predictive_hits(rng, draws, x[te], y[te], levels)
    save_npz(output.summary, methods=np.array(methods), hits=hits, n_test=n_test,
             levels=np.array(levels), eps=np.array(float(epsilon)), n_total=np.array(x.size))


def plot_fig5_9(input, output, *, cfg: dict) -> None:
    """Fig 5.9: coverage of 50% / 90% posterior-predictive intervals vs epsilon; also a table."""
    cir = cfg["cirrhosis"]
    per_eps = {}
    for path in input.chunks:
        d = load_npz(path)
        e = float(d["eps"])
        acc = per_eps.setdefault(e, {"hits": 0, "n": 0, "methods": [str(m) for m in d["methods"]]})
        acc["hits"] = acc["hits"] + d["hits"].sum(axis=1)
        acc["n"] += int(d["n_test"].sum())
        n_total = int(d["n_total"])
    levels = [float(v) for v in cir["levels"]]
    eps_sorted = sorted(per_eps)
    methods = per_eps[eps_sorted[0]]["methods"]
    fig, axes = subplots(1, len(levels), width=7.0, height=2.8, squeeze=False)
    rows = []
    for k, lev in enumerate(levels):
        ax = axes[0, k]
        for i, m in enumerate(methods):
            cov = [per_eps[e]["hits"][i, k] / per_eps[e]["n"] for e in eps_sorted]
            ax.plot(eps_sorted, cov, **_method_style(m))
            for e, c in zip(eps_sorted, cov):
                rows.append({"level": lev, "epsilon": fmt_eps(e), "method": LABELS[m], "coverage": c,
                             "test_points": per_eps[e]["n"]})
        ax.axhline(lev, color="0.3", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("epsilon")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{int(round(100 * lev))}% predictive interval")
        if k == 0:
            ax.set_ylabel("coverage of test points")
    n_pts = per_eps[eps_sorted[0]]["n"]
    fig.suptitle(f"Cirrhosis vs {cir['covariate']} (min-max scaled): {cir['splits']} random "
                 f"{cir['n_train']}/{n_total - cir['n_train']} splits, {n_pts} test points", fontsize=9)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(methods), fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.11, 1, 0.95))
    save_figure(fig, output.pdf, output.png)
    write_table(output.csv, output.md, rows, ["level", "epsilon", "method", "coverage", "test_points"],
                title="bernstein2020 Fig 5.9: posterior-predictive coverage on the cirrhosis data",
                notes="The thesis shows these only as a bar plot (no numbers).", digits=3)
