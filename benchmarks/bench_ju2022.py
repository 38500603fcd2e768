"""Speed of Algorithm 1 (ju2022): one 10,000-iteration chain per model, N = 100.

    python benchmarks/bench_ju2022.py                       # ours vs the figures in FACTS.md
    python benchmarks/bench_ju2022.py --authors-dir DIR     # also run the authors' R code now

With ``--authors-dir`` (a checkout of nianqiaoju/dataaugmentation-mcmc-differentialprivacy,
not part of this project) and ``Rscript`` on PATH (Debian: r-base-core r-cran-extradistr
r-cran-vgam r-cran-mass), the authors' scripts run for ``--r-sweeps`` sweeps in the same run,
and the ratio is of CPU seconds measured side by side. Times are CPU (process) seconds, so a
busy machine affects both sides alike; each of ours is the median of ``--repeats`` chains.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dpinfer.mechanisms import Laplace  # noqa: E402
from dpinfer.models import gaussian_linreg, naive_bayes  # noqa: E402
from dpinfer.samplers.data_augmentation import run_linreg, run_loglinear  # noqa: E402
from dpinfer.studies.ju2022.paper_values import PAPER_SECONDS  # noqa: E402

DATA = ROOT / "config" / "data" / "ju2022"
ITER = 10_000
# Authors' R code on a 2-core machine, CPU s per 10,000 sweeps (reference/ju2022/FACTS.md, Sec. 6).
FACTS_R = {
    ("loglinear", 10.0): 231.0,
    ("loglinear", 1.0): 300.0,
    ("loglinear", 0.1): 306.0,
    ("linreg", 10.0): 140.0,
}


def ours(model: str, eps: float, repeats: int) -> float:
    rng = np.random.default_rng(1)
    if model == "loglinear":
        ref = naive_bayes.load_reference(*naive_bayes.reference_files(DATA))
        mech = Laplace.calibrated(eps, naive_bayes.sensitivity_l1(ref.shape[0]))
        released = mech.release(rng, ref.counts)

        def chain(iterations):
            return run_loglinear(
                naive_bayes.Problem(
                    released, scale=mech.scale, alpha_p=ref.alpha_p, alpha=ref.alpha, n_records=100
                ),
                burnin=0,
                keep=iterations,
                rng=rng,
            )
    else:
        ref = gaussian_linreg.load_reference(*gaussian_linreg.reference_files(DATA))
        mech = Laplace.calibrated(eps, gaussian_linreg.sensitivity_l1_printed(ref.p))
        released = mech.release(rng, gaussian_linreg.released_statistic(ref.X, ref.y, ref.clamp))

        def chain(iterations):
            return run_linreg(
                gaussian_linreg.Problem(
                    released,
                    scale=mech.scale,
                    mean_x=ref.mean_x,
                    cov_x=ref.cov_x,
                    sigma2=ref.sigma2,
                    tau=ref.tau,
                    clamp=ref.clamp,
                    n_records=100,
                ),
                burnin=0,
                keep=iterations,
                rng=rng,
            )

    chain(2)  # load the compiled kernel
    return statistics.median(chain(ITER).info.cpu_seconds for _ in range(repeats))


def authors(model: str, authors_dir: Path, sweeps: int) -> float | None:
    """CPU seconds of the authors' script for ``sweeps`` sweeps at noise level 1 (eps = 10)."""
    if shutil.which("Rscript") is None:
        return None
    script = {"loglinear": "loglinear_gibbs.R", "linreg": "linearregression_gibbs.R"}[model]
    with tempfile.TemporaryDirectory() as tmp:
        for f in authors_dir.iterdir():
            shutil.copy(f, tmp)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the regression script exits 1 from a plotting line after its loop (FACTS.md): ignore
        subprocess.run(
            ["Rscript", script, "iexp=1", "noiselevel=1", f"niter={sweeps}"],
            cwd=tmp,
            capture_output=True,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--authors-dir", type=Path, help="checkout of the authors' repository (optional)"
    )
    ap.add_argument("--r-sweeps", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"# ju2022 benchmark: CPU seconds per {ITER:,}-iteration chain, N = 100")
    print(
        f"{'model':10s} {'eps':>5s} {'ours_s':>8s} {'authors_R_s':>12s} {'source':>22s} "
        f"{'ratio':>8s} {'ratio_vs_paper':>15s}"
    )
    for (model, eps), facts_s in FACTS_R.items():
        t_ours = ours(model, eps, args.repeats)
        r_s, source = facts_s, "FACTS.md (2-core)"
        if args.authors_dir and eps == 10.0:
            t0 = time.perf_counter()
            measured = authors(model, args.authors_dir, args.r_sweeps)
            if measured is not None:
                r_s, source = measured * ITER / args.r_sweeps, f"measured now ({args.r_sweeps} sw)"
                print(
                    f"#   ran the authors' {model} script: {measured:.1f} CPU s "
                    f"({time.perf_counter() - t0:.0f} s wall)",
                    flush=True,
                )
        print(
            f"{model:10s} {eps:5g} {t_ours:8.3f} {r_s:12.1f} {source:>22s} {r_s / t_ours:8.0f} "
            f"{PAPER_SECONDS[model] / t_ours:15.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
