"""Cold numba compile time of the slowest-compiling kernels: current code against a baseline
commit, in one run.

Run from the repository root:

    .venv/bin/python benchmarks/bench_compile.py [--baseline REF] [--repeat K] [--probe NAME]

Every measurement is a fresh Python process with an empty ``NUMBA_CACHE_DIR`` that imports the
package (current tree, or ``REF`` extracted by ``git archive`` and put first on PYTHONPATH) and
times the first call of one probe on a tiny input, so the time is the compilation (cache
writes included) and not the work. Current and baseline alternate, K times each; the table
gives medians and their ratio. A first run of the pipeline or of the tests on a fresh clone
pays these compilations (CI does, on every run); later runs load the cache.

Probes (the kernels that compile slowest, measured by the cold test run):
- ``algorithm2``: raim2021 Algorithm 2 (``run_noisy``), both Gibbs sweeps with the direct
  sampler inlined;
- ``direct_many``: the direct sampler's n-draw kernel (slides "Code example"), quantile rule.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baseline_tree import extract_src

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "bfc1305"


def _probe_algorithm2():
    import numpy as np

    from dpinfer.models.lognormal_regression import (
        Problem,
        ReleaseNoise,
        Truth,
        release,
        simulate_design,
        simulate_outcomes,
    )
    from dpinfer.samplers.lognormal_gibbs import run_noisy

    rng = np.random.default_rng(1)
    X = simulate_design(rng, 20)
    y = simulate_outcomes(rng, X, Truth())
    noise = ReleaseNoise.of(0.4, 0.5)
    yn, Xn = release(rng, y, X, noise)
    t0 = time.perf_counter()
    run_noisy(Problem(yn, Xn, noise), burnin=1, keep=1, rng=rng)
    return time.perf_counter() - t0


def _probe_direct_many():
    import numpy as np

    from dpinfer.samplers.direct import Base, DirectSettings, Weight, direct_sample

    t0 = time.perf_counter()
    direct_sample(
        2,
        Weight("lognormal", 100.0, 5.0, 9.0),
        Base("laplace", 0.2),
        np.random.default_rng(1),
        DirectSettings(),
        rebuild=True,
    )
    return time.perf_counter() - t0


PROBES = {"algorithm2": _probe_algorithm2, "direct_many": _probe_direct_many}


def _tree(ref: str | None) -> Path:
    """The src directory of the current tree, or of ``ref`` extracted into a temporary one."""
    return ROOT / "src" if ref is None else extract_src(ref, "bench_compile_")


def _measure(src: Path, probe: str) -> float:
    """Seconds of the probe's first call in a fresh process with an empty numba cache."""
    cache = tempfile.mkdtemp(prefix="bench_compile_cache_")
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(src))
        out = subprocess.run(
            [sys.executable, __file__, "--child", probe],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return float(out.split()[-1])
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--probe", choices=sorted(PROBES), action="append")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(PROBES[args.child]())
        return
    trees = {"baseline": _tree(args.baseline), "current": _tree(None)}
    print(f"cold compile, seconds (median of {args.repeat}; baseline = {args.baseline})")
    print(f"{'probe':12s} {'baseline':>9s} {'current':>9s} {'baseline/current':>17s}")
    for probe in args.probe or sorted(PROBES):
        times = {name: [] for name in trees}
        for _ in range(args.repeat):
            for name, src in trees.items():  # interleaved: a busy spell hits both
                times[name].append(_measure(src, probe))
        b, c = (statistics.median(times[k]) for k in ("baseline", "current"))
        print(f"{probe:12s} {b:9.1f} {c:9.1f} {b / c:17.2f}", flush=True)


if __name__ == "__main__":
    main()
