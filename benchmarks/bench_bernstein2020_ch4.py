"""Speed of the Chapter 4 noise-aware Gibbs samplers against the authors' Python code.

Peer figures (FACTS.md, "Measured speed of the author's code"): CPU iterations/s at n = 1000,
eps = 0.1 on a shared 2-vCPU AMD EPYC: binomial about 5,800, multinomial (K = 3) about 6,800,
truncated exponential about 226. We time the same settings after JIT compilation (CPU time of
the kernel call; best of ``--repeats``), and one full calibration trial (every method, MMD).

    /work/venv/bin/python benchmarks/bench_bernstein2020_ch4.py [--iterations 200000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpinfer.models import expfam
from dpinfer.samplers import noise_aware_gibbs as nag

PEER_CPU_IT_PER_S = {"binomial": 5800.0, "multinomial": 6800.0, "truncated exponential": 226.0}


def _cases(n: int, eps: float):
    a, b = expfam.prior_predictive_bounds(8.0, 2.0)
    scale_exp = expfam.truncation_sensitivity(a, b) / eps
    return {
        "binomial": lambda it, rng: nag.run_binomial(0.4 * n, n, (10.0, 10.0), 1.0 / eps, it, rng),
        "multinomial": lambda it, rng: nag.run_multinomial(np.array([0.3 * n, 0.33 * n]), n, np.full(3, 5.0),
                                                           1.0 / eps, it, rng),
        "truncated exponential": lambda it, rng: nag.run_truncated_exponential(0.22 * n, n, (8.0, 2.0), (a, b),
                                                                              scale_exp, it, rng),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--epsilon", type=float, default=0.1)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"n = {args.n}, eps = {args.epsilon}, {args.iterations} iterations, best of {args.repeats}")
    print(f"{'sampler':24s} {'it/s (CPU)':>14s} {'peer it/s':>10s} {'ratio':>9s}")
    for name, run in _cases(args.n, args.epsilon).items():
        run(100, rng)  # compile / load the cache
        best = min(run(args.iterations, rng).info["cpu_seconds"] for _ in range(args.repeats))
        ips = args.iterations / best
        print(f"{name:24s} {ips:14,.0f} {PEER_CPU_IT_PER_S[name]:10,.0f} {ips / PEER_CPU_IT_PER_S[name]:8,.0f}x")

    from dpinfer.studies import bernstein2020_ch4 as ch4
    import yaml
    from pathlib import Path

    cfg = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "config.yaml").read_text())
    cfg = cfg["bernstein2020"]["chapter4"]
    print("\none calibration trial at paper settings (5000 kept + 2000 burn-in, all methods, MMD m = "
          f"{cfg['mmd_draws']}):")
    for model in ("binomial", "multinomial", "exponential"):
        ch4.trial(model, args.n, args.epsilon, 0, cfg, 1)
        t0 = time.process_time()
        reps = 20
        for r in range(reps):
            ch4.trial(model, args.n, args.epsilon, r, cfg, 1)
        print(f"  {model:12s} {(time.process_time() - t0) / reps * 1000:7.1f} ms CPU per trial")


if __name__ == "__main__":
    main()
