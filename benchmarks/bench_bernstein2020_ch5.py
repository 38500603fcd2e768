"""Speed of the chapter-5 samplers against the author's Python code (FACTS.md, "Measured speed").

Peer figures (CPU iterations/s, 2-vCPU AMD EPYC, numpy 1.23, single-threaded BLAS):
Gibbs-SS-Update about 136 it/s at n = 100, eps = 0.1; Gibbs-SS with fixed moments about 920 it/s.
MCMC-Ind was never timed by the author (PyMC3 unavailable, released code broken), so only its
growth with n is reported.

Run:  /work/venv/bin/python benchmarks/bench_bernstein2020_ch5.py
"""

from __future__ import annotations

import time

import numpy as np

from dpinfer.models.linreg_nig import NIGPrior, NIWPrior, simulate_dataset
from dpinfer.samplers.gibbs_ss import clean_noisy_moments, run_gibbs_ss
from dpinfer.samplers.mcmc_ind import run_mcmc_ind
from dpinfer.studies.bernstein2020_ch5 import release_statistics

PEER_CPU_IT_S = {"gibbs_ss_update": 136.0, "gibbs_ss_prior": 920.0, "gibbs_ss_noisy": 920.0}
PRIOR = NIGPrior(np.zeros(2), np.diag([0.5 / 19, 0.5 / 19]), 20.0, 0.5)
DATA_PRIOR = NIWPrior(0.0, 1.0, 1.0, 50.0)


def main() -> None:
    rng = np.random.default_rng(2020)
    n, eps = 100, 0.1
    sim = simulate_dataset(rng, n, PRIOR, DATA_PRIOR)
    rel = release_statistics(rng, sim["x"], sim["y"], eps, (-1.0, 1.0))
    moments = clean_noisy_moments(rel["moment_sums"], n, (-1.0, 1.0))
    print(f"Gibbs-SS, n = {n}, eps = {eps}: CPU iterations/s (best of 3 runs of 25,000 iterations)")
    for flavour, peer in PEER_CPU_IT_S.items():
        z, scale = (rel["z_half"], rel["scale_half"]) if flavour == "gibbs_ss_noisy" else (rel["z_full"], rel["scale_full"])
        kw = {"moments": moments} if flavour == "gibbs_ss_noisy" else {"data_prior": DATA_PRIOR}
        run_gibbs_ss(z, n, scale, flavour, PRIOR, rng=rng, burnin=10, keep=10, **kw)  # compile
        best = np.inf
        for _ in range(3):
            t0 = time.process_time()
            run_gibbs_ss(z, n, scale, flavour, PRIOR, rng=rng, burnin=5000, keep=20000, **kw)
            best = min(best, time.process_time() - t0)
        rate = 25000 / best
        print(f"  {flavour:16s} {rate:12,.0f} it/s   peer {peer:6,.0f} it/s   ratio {rate / peer:8,.0f}x")
    print("MCMC-Ind (record-wise data augmentation), eps = 0.1: CPU seconds per 2,500 sweeps")
    for n in (10, 100, 1000):
        sim = simulate_dataset(rng, n, PRIOR, DATA_PRIOR)
        rel = release_statistics(rng, sim["x"], sim["y"], eps, (-1.0, 1.0))
        run_mcmc_ind(rel["z_full"], n, rel["scale_full"], PRIOR, DATA_PRIOR, rng=rng, burnin=5, keep=5)
        t0 = time.process_time()
        run_mcmc_ind(rel["z_full"], n, rel["scale_full"], PRIOR, DATA_PRIOR, rng=rng, burnin=500, keep=2000)
        print(f"  n = {n:5d}: {time.process_time() - t0:7.3f} s")


if __name__ == "__main__":
    main()
