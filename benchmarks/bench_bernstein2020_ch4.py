"""Speed of the Chapter 4 noise-aware Gibbs samplers against the authors' Python code.

Peer figures (FACTS.md, "Measured speed of the author's code"): CPU iterations/s at n = 1000,
eps = 0.1 on a shared 2-vCPU AMD EPYC: binomial about 5,800, multinomial (K = 3) about 6,800,
truncated exponential about 226. We time the same settings after JIT compilation (CPU time of
the kernel call, ``chain.info.cpu_seconds``; best of ``--repeats``), and one full calibration
trial (every method, MMD) at the paper's chain lengths.

    python benchmarks/bench_bernstein2020_ch4.py [--iterations 200000] [--repeats 3] [--trials 20]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import yaml

from dpinfer.mechanisms import Laplace
from dpinfer.models import expfam
from dpinfer.samplers import noise_aware_gibbs as nag
from dpinfer.studies.bernstein2020_ch4 import run as ch4

PEER_CPU_IT_PER_S = {"binomial": 5800.0, "multinomial": 6800.0, "truncated exponential": 226.0}


def _cases(n: int, eps: float):
    """name -> run(iterations, rng) at released values near a typical trial's."""
    a, b = expfam.prior_predictive_bounds(8.0, 2.0)
    count = Laplace.calibrated(eps, 1.0)
    total = Laplace.calibrated(eps, expfam.truncation_sensitivity(a, b))
    return {
        "binomial": lambda it, rng: nag.run_binomial(
            expfam.Problem(0.4 * n, n, (10.0, 10.0), count), burnin=0, keep=it, rng=rng
        ),
        "multinomial": lambda it, rng: nag.run_multinomial(
            expfam.Problem(np.array([0.3 * n, 0.33 * n]), n, np.full(3, 5.0), count),
            burnin=0,
            keep=it,
            rng=rng,
        ),
        "truncated exponential": lambda it, rng: nag.run_truncated_exponential(
            expfam.Problem(0.22 * n, n, (8.0, 2.0), total),
            bounds=(a, b),
            burnin=0,
            keep=it,
            rng=rng,
        ),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--trials", type=int, default=20)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print(
        f"n = {args.n}, eps = {args.epsilon}, {args.iterations} iterations, best of {args.repeats}"
    )
    print(f"{'sampler':24s} {'it/s (CPU)':>14s} {'peer it/s':>10s} {'ratio':>9s}")
    for name, run in _cases(args.n, args.epsilon).items():
        run(100, rng)  # compile / load the cache
        best = min(run(args.iterations, rng).info.cpu_seconds for _ in range(args.repeats))
        ips = args.iterations / best
        print(
            f"{name:24s} {ips:14,.0f} {PEER_CPU_IT_PER_S[name]:10,.0f} "
            f"{ips / PEER_CPU_IT_PER_S[name]:8,.0f}x"
        )

    cfg = yaml.safe_load(
        (Path(__file__).resolve().parents[1] / "config" / "config.yaml").read_text()
    )
    cfg = cfg["bernstein2020"]["chapter4"]
    print(
        f"\none calibration trial at paper settings ({cfg['iterations']} kept + {cfg['burnin']} "
        f"burn-in, all methods, MMD m = {cfg['mmd_draws']}):"
    )
    for model in ("binomial", "multinomial", "exponential"):
        settings = ch4.TrialSettings.from_section(cfg, model)
        ch4.trial(model, args.n, args.epsilon, 0, settings, 1)
        t0 = time.process_time()
        for r in range(args.trials):
            ch4.trial(model, args.n, args.epsilon, r, settings, 1)
        print(
            f"  {model:12s} {(time.process_time() - t0) / args.trials * 1000:7.1f} ms CPU per trial"
        )


if __name__ == "__main__":
    main()
