"""Speed of the raim2021 direct sampler and Gibbs sampler against the published / peer figures.

Run from the repository root:  .venv/bin/python benchmarks/bench_raim2021.py [--quick]

Peer figures (reference/raim2021/FACTS.md Sec. 6; the slides):
- author's C++ sampler, 10,000 calls with n = 1 (envelope rebuilt per draw): 1.42 s at tol 1e-10;
- one call with n = 10,000 (one envelope): 0.031 s;
- one Gibbs run (n = 200, 2,000 iterations, rho = .01, lambda = .2): 142.3 s re-run on a shared
  2-vCPU machine, 129.29 s in the slides (i7-2600).
The script prints our time and the ratio peer / ours, and an estimate of the whole study's wall
time (9 settings x 500 replications x (Algorithm 2 + Algorithm 4)) on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import yaml

from dpinfer.models.lognormal_regression import (ReleaseNoise, Truth, release, simulate_design,
                                                  simulate_outcomes)
from dpinfer.samplers.direct import Base, DirectSettings, Weight, direct_sample
from dpinfer.samplers.lognormal_gibbs import run_noise_free, run_noisy

# the direct-sampler settings the pipeline uses (config/config.yaml, raim2021.direct)
with open("config/config.yaml", encoding="utf-8") as _fh:
    DIRECT = DirectSettings.from_config(yaml.safe_load(_fh)["raim2021"]["direct"])

PEER_CALLS_N1 = 1.42          # s per 10,000 calls, C++, tol 1e-10
PEER_ONE_CALL = 0.031         # s for n = 10,000 with one envelope
PEER_GIBBS = 142.3            # s per Gibbs run (re-run)
PAPER_GIBBS = 129.29          # s per Gibbs run (slides)


def _best(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_direct():
    w, b = Weight("lognormal", 100.0, 5.0, 9.0), Base("laplace", 0.2)
    rng = np.random.default_rng(1)
    print("direct sampler, code example (z=100, mu=5, s2=9, Laplace 0.2)")
    for st in (DIRECT, DirectSettings(),
               DirectSettings(method="small_rects", n_knots=100, tol=1e-10),
               DirectSettings(method="small_rects", n_knots=10, tol=1e-6),
               DirectSettings(method="equal_steps", n_knots=100, tol=1e-10)):
        direct_sample(10, w, b, rng, st, rebuild=True)  # compile
        t1 = _best(lambda: direct_sample(10_000, w, b, rng, st, rebuild=True))
        t2 = _best(lambda: direct_sample(10_000, w, b, rng, st, rebuild=False))
        print(f"  {st.method:12s} N={st.n_knots:3d} tol={st.tol:.0e} sds={len(st.weight_sds)}: 10,000 calls n=1 {t1:.4f} s "
              f"({PEER_CALLS_N1 / t1:6.1f}x peer); one call n=10,000 {t2:.4f} s "
              f"({PEER_ONE_CALL / t2:5.1f}x peer)")


def _data(rho, lam, seed=1234):
    rng = np.random.default_rng(seed)
    truth = Truth()
    X = simulate_design(rng, truth.n)
    y = simulate_outcomes(rng, X, truth)
    noise = ReleaseNoise.of(rho, lam)
    y_noisy, X_noisy = release(rng, y, X, noise)
    return y, X, y_noisy, X_noisy, noise


def bench_gibbs(quick: bool):
    y, X, yn, Xn, noise = _data(0.01, 0.2)
    run_noisy(yn, Xn, noise, burnin=0, keep=3, rng=np.random.default_rng(0), direct=DIRECT)  # compile
    run_noise_free(y, X, burnin=0, keep=3, rng=np.random.default_rng(0))
    c = run_noisy(yn, Xn, noise, burnin=1000, keep=1000, rng=np.random.default_rng(1),
                  direct=DIRECT, timed=True)
    x = c.info.extra
    t = {k: x[f"cpu_seconds_{k}"] for k in ("y", "xi_x", "rest")}
    total = sum(t.values())
    print(f"Gibbs run rho=.01 lambda=.2 (n=200, 2000 it.): {total:.3f} CPU s = y {t['y']:.3f} + "
          f"xi {t['xi_x']:.3f} + rest {t['rest']:.3f}; {PEER_GIBBS / total:.0f}x the re-run "
          f"({PEER_GIBBS} s), {PAPER_GIBBS / total:.0f}x the slides ({PAPER_GIBBS} s)")
    print(f"  proposals per y {x['proposals_per_y']:.3f}, per xi {x['proposals_per_xi']:.3f}")
    per_setting = []
    for rho in (0.01, 0.1, 0.4):
        for lam in (0.05, 0.1, 0.2):
            times = []
            for seed in range(1 if quick else 3):
                y, X, yn, Xn, noise = _data(rho, lam, seed)
                a = run_noisy(yn, Xn, noise, burnin=1000, keep=1000, rng=np.random.default_rng(seed),
                              direct=DIRECT)
                b = run_noise_free(y, X, burnin=1000, keep=1000, rng=np.random.default_rng(seed))
                times.append(a.info.cpu_seconds + b.info.cpu_seconds)
            per_setting.append(np.mean(times))
            print(f"  rho={rho:<4} lambda={lam:<4}: {per_setting[-1]:.3f} CPU s per replication "
                  f"(Alg 2 + Alg 4)")
    study = 500 * sum(per_setting) / 2
    print(f"estimated study wall time, 9 x 500 x 2 chains on 2 free cores: {study / 60:.1f} min "
          f"(author's package: ~175 CPU-hours)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one replication per setting")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    bench_direct()
    bench_gibbs(args.quick)


if __name__ == "__main__":
    main()
