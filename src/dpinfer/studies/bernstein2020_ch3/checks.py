"""Independent checks behind chapter 3's "differs" rows: is a worse CGM our optimiser, our start
or our lambda, or the method?

For one Fig 3.4 cell (or the Fig 3.5 cell) at the config's settings, every trial is refitted:

- CGM-EM from the naive fit (as the study) and from the true parameters, both at CGM's lambda
  tuned as the study tunes it (oracle KL on the first trial over ``lambdas.cgm``): the same EM
  objective per individual and the same KL mean that the fixed point does not depend on the start;
- CGM at several other L2 penalties (``--lambdas``);

and the tuned naive MLE beside them, with the paired difference and its standard error. Run

    python -m dpinfer.studies.bernstein2020_ch3.checks fig3_4 chain1 10000 1

(``docs/deviations.md``, "Ch. 3: CGM vs naive MLE at small noise", quotes its output at the
paper-scale config).
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import yaml

from ...estimators import estimator
from .grid import ch3_cell_name, ch3_cells
from .problems import build_instance, population, release
from .run import Tuned, cgm_fit, cgm_inference, fit_metrics, lambda_grid

__all__ = ["cgm_checks", "main"]


def cgm_checks(
    ch3: dict, seed: int, figure: str, *, model=None, n=None, epsilon=None, lambdas=(0.1, 1.0, 10.0)
) -> dict:
    """Per-trial KL of the tuned naive fit, of CGM from the naive fit and from the truth (and their
    final EM objectives per individual), and of CGM at each of ``lambdas``, for one cell of the
    chapter's config ``ch3``. Trials are the cell's populations x releases, as in the study."""
    cells = ch3_cells(ch3)[figure]
    name = ch3_cell_name(figure, model=model, n=n, epsilon=epsilon)  # fig3_5: its one cell
    cell = cells[name]
    spec = dict(cell["spec"])
    inst = build_instance(seed, cell["model"], spec, int(ch3["nodes"]), int(cell["states"]))
    n, eps = int(cell["n"]), float(cell["epsilon"])
    cgm, inference = cell["cgm"], cgm_inference(spec, cell["cgm"])
    P, R = int(ch3["populations"]), int(cell.get("releases") or ch3["releases"])
    out = defaultdict(list)

    def oracle(th):  # the study's tuning score: -KL on the cell's first trial
        return -fit_metrics(inst, th)[0]

    naive_tuning = Tuned(lambda_grid(cell["lambdas"]["naive_mle"]), oracle)
    cgm_tuning = Tuned(lambda_grid(cell["lambdas"]["cgm"]), oracle)

    for p in range(P):
        pop = population(seed, inst, n, p, int(ch3["records_max_n"]))
        for r in range(R):
            t = p * R + r
            y, mech = release(seed, inst.name, n, eps, t, pop.tables, inst.model.n_cliques / 1.0)
            naive = naive_tuning.fit(
                lambda v: estimator("naive_mle")(inst.model, y, float(n), v, project=True)
            )

            def cgm_at(v, y=y, scale=mech.scale, start=naive.theta):
                return cgm_fit(inst.model, y, n, scale, v, start, cgm, inference)

            fits = {
                "cgm": cgm_tuning.fit(cgm_at),
                "cgm_from_truth": cgm_fit(
                    inst.model, y, n, mech.scale, cgm_tuning.lam, inst.theta, cgm, inference
                ),
            }
            out["naive_mle"].append(fit_metrics(inst, naive.theta)[0])
            for key, fit in fits.items():
                out[key].append(fit_metrics(inst, fit.theta)[0])
            out["objective"].append(fits["cgm"].objective[-1] / n)
            out["objective_from_truth"].append(fits["cgm_from_truth"].objective[-1] / n)
            out["converged"].append(fits["cgm"].converged and fits["cgm_from_truth"].converged)
            for lam in lambdas:
                fit = (
                    fits["cgm"]
                    if lam == cgm_tuning.lam
                    else cgm_fit(inst.model, y, n, mech.scale, lam, naive.theta, cgm, inference)
                )
                out[f"cgm_lambda_{lam:g}"].append(fit_metrics(inst, fit.theta)[0])
    return {k: np.asarray(v, dtype=float) for k, v in out.items()} | {
        "naive_mle_lambda": naive_tuning.lam,
        "cgm_lambda": cgm_tuning.lam,
        "cell": name,
    }


def _paired(a, b) -> str:
    d = np.asarray(a) - np.asarray(b)
    se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else float("nan")
    return f"{d.mean():+.4g} +- {se:.2g}"


def report(res: dict, lambdas) -> str:
    best = min(lambdas, key=lambda lam: res[f"cgm_lambda_{lam:g}"].mean())
    gap = np.max(np.abs(res["objective"] - res["objective_from_truth"]))
    return "\n".join(
        [
            f"cell {res['cell']} ({res['naive_mle'].size} trials; "
            f"naive lambda {res['naive_mle_lambda']:g}; CGM lambda {res['cgm_lambda']:g}; every EM "
            "fit converged: "
            f"{bool(res['converged'].all())})",
            f"  mean KL: naive {res['naive_mle'].mean():.5g}; "
            f"CGM from the naive fit {res['cgm'].mean():.5g}; "
            f"CGM from the truth {res['cgm_from_truth'].mean():.5g}",
            f"  largest |EM objective per individual, naive start - truth start|: {gap:.2g}",
            "  CGM by lambda: "
            + ", ".join(f"{lam:g}: {res[f'cgm_lambda_{lam:g}'].mean():.5g}" for lam in lambdas),
            f"  naive - CGM (as run): {_paired(res['naive_mle'], res['cgm'])}; "
            f"naive - CGM at its best --lambdas value ({best:g}): "
            f"{_paired(res['naive_mle'], res[f'cgm_lambda_{best:g}'])}",
        ]
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description="CGM-EM checks on one chapter-3 cell at the config's settings."
    )
    ap.add_argument("figure", choices=("fig3_4", "fig3_5"))
    ap.add_argument("model", nargs="?", help="fig3_4: the model key (chain1, chain3, er)")
    ap.add_argument("n", nargs="?", type=float)
    ap.add_argument("epsilon", nargs="?", type=float)
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--lambdas", default="0.1,1,10")
    a = ap.parse_args(argv)
    cfg = yaml.safe_load(Path(a.config).read_text(encoding="utf-8"))
    lambdas = tuple(float(v) for v in a.lambdas.split(","))
    kw = {} if a.figure == "fig3_5" else {"model": a.model, "n": int(a.n), "epsilon": a.epsilon}
    res = cgm_checks(
        cfg["bernstein2020"]["chapter3"], int(cfg["seed"]), a.figure, lambdas=lambdas, **kw
    )
    print(report(res, lambdas))


if __name__ == "__main__":
    main()
