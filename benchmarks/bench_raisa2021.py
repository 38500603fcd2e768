"""Speed of the raisa2021 kernels and samplers (DP penalty, DP HMC, minibatch DP penalty, DP
Barker, the clipping study's RWMH and HMC) on the Table 5.1 models.

    python benchmarks/bench_raisa2021.py              # all figures
    python benchmarks/bench_raisa2021.py --repeats 50

Prints ns per data row of one clipped log-likelihood-ratio pass and of one clipped gradient
pass (easy-2d, hard-2d, hard-gauss-2d, circle, easy-10d, gauss-30d at their Table 5.1 n; plus
the one-coordinate (dppa) ratio pass; data stored as float32, see dpinfer.models.dp_mcmc) and the
fraction of clipped rows of each pass, the dpps iteration rate on easy-2d, the iteration rates of
the batch samplers (ns per batch row and iteration; seed-version hyperparameters) and of the
clipping study's chains (exact-gradient HMC needs no data pass for its gradients), and the fixed
cost per chain: a fresh
Python process (warm numba cache) that imports the package, builds easy-2d and runs a
2-iteration run_dp_penalty and run_dp_hmc, timed separately. Times are wall-clock medians
(perf_counter) of ``--repeats`` passes on an otherwise idle machine.
Author's figures (reference/raisa2021/FACTS.md, Sec. 10, 2-core machine): about 4 ns per row
(dpps circle 2300 it/s at n = 1e5), DP Barker easy-2d at least 380 it/s, and 8-10 s fixed cost
per chain (imports 2.5 s, data and JIT 1.4 s, uncached MMD compilation 4.5-6 s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dpinfer.models import dp_mcmc as M  # noqa: E402
from dpinfer.models.barker_correction import load_vcorr  # noqa: E402
from dpinfer.samplers.dp_hmc import run_dp_hmc  # noqa: E402
from dpinfer.samplers.dp_penalty import run_dp_penalty  # noqa: E402
from dpinfer.samplers.registry import dp_chain_lengths, options_of, sampler  # noqa: E402
from dpinfer.studies.raisa2021.settings import clipping_hyper, clipping_spec, hyperparameters  # noqa: E402

PARAMS = ROOT / "config" / "data" / "raisa2021" / "params.yaml"
VCORR = ROOT / "config" / "data" / "raisa2021" / "vcorr_C2.0_K100.tsv"
AUTHOR_NS_PER_ROW = 4.0
AUTHOR_FIXED_S = (8.0, 10.0)

FRESH = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import yaml
from dpinfer.models import dp_mcmc as M
from dpinfer.samplers.dp_penalty import run_dp_penalty
from dpinfer.samplers.dp_hmc import run_dp_hmc
t1 = time.perf_counter()
spec = json.loads(sys.argv[1])
pb = M.make_problem("easy-2d", spec, np.random.default_rng(0))
t2 = time.perf_counter()
run_dp_penalty(pb, pb.theta_true, 2, tau=0.1, prop_sd=0.008, clip_bound=2.0, \
rng=np.random.default_rng(1))
t3 = time.perf_counter()
run_dp_hmc(pb, pb.theta_true, 2, tau_l=0.1, tau_g=0.4, steps=10, step_size=5e-4, \
mass=1.0, clip_llr=2.0,
           clip_grad=1.0, rng=np.random.default_rng(2))
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "build": t2 - t1, "penalty": t3 - t2, "hmc": t4 - t3}))
"""


def _median_seconds(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pass_times(
    pb: M.Problem, step: float, bound_llr: float, bound_grad: float, repeats: int
) -> dict:
    """ns per row of a full ratio pass, a one-coordinate ratio pass and a gradient pass."""
    rng = np.random.default_rng(5)
    theta = pb.start_centre + step * rng.standard_normal(pb.dim)
    new = theta + step * rng.standard_normal(pb.dim)
    one = theta.copy()
    one[-1] += step
    out = np.empty(pb.dim)
    k, p, x = pb.kind, pb.params, pb.data
    res = {
        "llr": _median_seconds(lambda: M.clipped_llr_sum(k, p, x, theta, new, bound_llr), repeats),
        "llr_one_coordinate": _median_seconds(
            lambda: M.clipped_llr_sum(k, p, x, theta, one, bound_llr), repeats
        ),
        "grad": _median_seconds(
            lambda: M.clipped_grad_sum(k, p, x, theta, bound_grad, out), repeats
        ),
    }
    ns = {key: 1e9 * v / pb.n for key, v in res.items()}
    ns["clipped_llr"] = M.clipped_llr_sum(k, p, x, theta, new, bound_llr)[1] / pb.n
    ns["clipped_grad"] = M.clipped_grad_sum(k, p, x, theta, bound_grad, out) / pb.n
    return ns


def fixed_cost(spec: dict) -> dict:
    """Seconds of a fresh process (warm cache): import, problem build, 2-iteration chains."""
    env_path = str(ROOT / "src")
    cmd = [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {env_path!r})\n" + FRESH,
        json.dumps(spec),
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["process_total"] = time.perf_counter() - t0
    return res


def batch_rates(params: dict, iterations: int) -> None:
    """Iterations per second and ns per batch row of mdpps, mdppa and barker (seed version)."""
    print(f"{'model':14s} {'algorithm':9s} {'B':>5s} {'it/s':>10s} {'ns/batch row':>13s}")
    vcorr = load_vcorr(VCORR)
    for name in ("easy-2d", "easy-10d", "tempered-2d", "tempered-10d"):
        pb = M.make_problem(name, params["models"][name], np.random.default_rng(0))
        for algo in ("mdpps", "mdppa", "barker"):
            hyper = dict(hyperparameters(params, name, algo, "seed"), vcorr=vcorr)
            run = sampler("dp_mcmc", algo)
            seconds = _median_seconds(
                lambda: run(
                    pb,
                    np.random.default_rng(4),
                    start=pb.theta_true,
                    **options_of(run, hyper),
                    **dp_chain_lengths(iterations),
                ),
                3,
            )
            batch = int(hyper["batch_size"])
            print(
                f"{name:14s} {algo:9s} {batch:5d} {iterations / seconds:10,.0f} "
                f"{1e9 * seconds / iterations / batch:13.3f}",
                flush=True,
            )


def clipping_rates(params: dict) -> None:
    """Seconds per clipping-study chain (RWMH 3000, HMC 500 iterations) at bound 2 and 1000."""
    for dim in (2, 10):
        spec = clipping_spec(params, dim, 100000)
        pb = M.make_problem(f"clipping-d{dim}", spec, np.random.default_rng(0))
        for algo in ("rwmh", "hmc"):
            h = clipping_hyper(params, algo, dim)
            for bound in (2.0, 1000.0):
                if algo == "rwmh":

                    def fn():
                        return run_dp_penalty(
                            pb,
                            pb.theta_true,
                            h["iterations"],
                            tau=0.0,
                            prop_sd=h["prop_sd"],
                            clip_bound=bound,
                            rng=np.random.default_rng(5),
                        )

                else:

                    def fn():
                        return run_dp_hmc(
                            pb,
                            pb.theta_true,
                            h["iterations"],
                            tau_l=0.0,
                            tau_g=0.0,
                            steps=h["L"],
                            step_size=h["eta"],
                            mass=h["mass_diag"],
                            clip_llr=bound,
                            clip_grad=np.inf,
                            rng=np.random.default_rng(5),
                        )

                seconds = _median_seconds(fn, 3)
                print(
                    f"# clipping study d = {dim} {algo} bound {bound:g}: {seconds:.3f} s per chain "
                    f"({1e9 * seconds / h['iterations'] / pb.n:.3f} ns per row and iteration)",
                    flush=True,
                )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=30, help="passes per timing (median)")
    ap.add_argument("--dpps-iterations", type=int, default=2000)
    ap.add_argument(
        "--batch-iterations", type=int, default=20000, help="iterations of a batch-sampler timing"
    )
    args = ap.parse_args()
    models = yaml.safe_load(PARAMS.read_text())["models"]
    print(
        "# raisa2021 benchmark: ns per data row of one clipped pass (median of "
        f"{args.repeats}); author ~{AUTHOR_NS_PER_ROW:g} ns/row"
    )
    print(
        f"{'model':14s} {'n':>8s} {'llr':>8s} {'llr_1coord':>11s} {'grad':>8s}  clipped fraction "
        "llr / grad (bounds from dpps / hmc params)"
    )
    problems = {}
    for name in ("easy-2d", "hard-2d", "hard-gauss-2d", "circle", "easy-10d", "gauss-30d"):
        spec = models[name]
        pb = M.make_problem(name, spec, np.random.default_rng(0))
        problems[name] = pb
        algos = spec["algorithms"]
        step = 0.3 if pb.kind == 2 else float(algos["dpps"]["prop_sd"])
        ns = pass_times(
            pb,
            step,
            float(algos["dpps"]["clip_bound"]),
            float(algos["hmc"]["clip_bound_grad"]),
            args.repeats,
        )
        print(
            f"{name:14s} {pb.n:8d} {ns['llr']:8.3f} {ns['llr_one_coordinate']:11.3f} "
            f"{ns['grad']:8.3f}  {ns['clipped_llr']:.3f} / {ns['clipped_grad']:.3f}",
            flush=True,
        )

    pb = problems["easy-2d"]
    dpps = models["easy-2d"]["algorithms"]["dpps"]

    def chain():
        return run_dp_penalty(
            pb,
            pb.theta_true,
            args.dpps_iterations,
            tau=dpps["tau"],
            prop_sd=dpps["prop_sd"],
            clip_bound=dpps["clip_bound"],
            rng=np.random.default_rng(3),
        )

    seconds = _median_seconds(chain, 3)
    print(
        f"# dpps easy-2d: {args.dpps_iterations / seconds:,.0f} iterations/s "
        f"({1e9 * seconds / args.dpps_iterations / pb.n:.3f} ns per row and iteration; author "
        "~1200-1400 it/s)"
    )
    batch_rates(yaml.safe_load(PARAMS.read_text()), args.batch_iterations)
    clipping_rates(yaml.safe_load(PARAMS.read_text()))
    fc = fixed_cost(
        {
            k: v
            for k, v in models["easy-2d"].items()
            if k in ("family", "dim", "n", "a", "temperature", "prior_variance", "theta_true")
        }
    )
    print(
        f"# fixed cost per chain, fresh process with warm cache: import {fc['import']:.2f} s, "
        f"build easy-2d {fc['build']:.2f} s, 2-iteration dpps call {fc['penalty']:.3f} s, "
        f"2-iteration DP HMC call {fc['hmc']:.3f} s; whole process {fc['process_total']:.2f} s "
        f"(author {AUTHOR_FIXED_S[0]:g}-{AUTHOR_FIXED_S[1]:g} s)"
    )


if __name__ == "__main__":
    main()
