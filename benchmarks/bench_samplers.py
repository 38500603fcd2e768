"""Speed of one chain of every sampler family: current code against a baseline commit, in one
run, as paired ratios with their noise.

Run from the repository root:

    .venv/bin/python benchmarks/bench_samplers.py [--baseline REF] [--repeat K] [--quick]
                                                  [--family NAME ...]

Two worker processes, one per version: the current tree (``src/``) and ``REF`` extracted by
``git archive`` (benchmarks/baseline_tree.py), each first on its PYTHONPATH with its own empty
``NUMBA_CACHE_DIR`` (and one BLAS thread). Each worker builds the same small problems (with its
own model modules; a fingerprint of the inputs is compared), compiles every chain (a short run)
and runs it once at full length, untimed; both warm up at once. Then, K times, the parent asks
the two workers in turn to run each family's chain with the same seed, so the two runs of a pair
are back to back (baseline first in repeats 1, 3, ..., current first in 2, 4, ...) and a busy
spell of the machine hits both. A run is timed with ``time.process_time()`` around the public
``run_*`` function: CPU seconds of the worker, not wall time.

Per family the table gives the median CPU seconds of each version, the median over the K pairs
of current / baseline and the interquartile range of those paired ratios (the noise). A family
whose whole IQR lies above 1.02 is flagged ``slower``, below 0.98 ``faster`` (smaller
differences come and go with code layout). ``same draws``: the two versions returned identical
draws for the first seed (the same computation was timed).

Families (one registered ``run_*`` function each, called by the sampler contract of
``dpinfer.samplers.registry``, so a baseline must be a commit that has it):
ju2022 log-linear Algorithm 1 (``data_augmentation.run_loglinear``, the authors' N = 100
tables), bernstein2020 Ch. 4 noise-aware Gibbs and record-wise binomial (n = 1000), Ch. 5
MCMC-Ind (n = 100) and Gibbs-SS-Update (n = 1000), raim2021 Algorithm 2
(``lognormal_gibbs.run_noisy``, n = 200), raisa2021 DP penalty, minibatch DP penalty, DP HMC
and DP Barker on the easy-2d banana (n = 100,000, the hyperparameters of params.yaml).
"""

from __future__ import annotations

import argparse
import json
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
BASELINE = "fc15a8d"
JU2022_DATA = ROOT / "config" / "data" / "ju2022"
VCORR_FILE = ROOT / "config" / "data" / "raisa2021" / "vcorr_C2.0_K100.tsv"
QUICK_LENGTH, QUICK_REPEAT, REPEAT = 0.25, 3, 7
CALL = 0.02  # a verdict needs the whole IQR of the ratios beyond 1 -+ this
TAG = "@@bench "  # prefix of the workers' protocol lines on stdout


# ----------------------------------------------------------------------------- the families
# Each builder runs in a worker, imports that worker's dpinfer and returns (chain, inputs):
# chain(rng, iterations) runs the sampler, inputs are the arrays of the problem (fingerprinted).
def _split(iterations):
    burnin = iterations // 5
    return {"burnin": burnin, "keep": iterations - burnin}


def _loglinear():
    import numpy as np

    from dpinfer.mechanisms import Laplace
    from dpinfer.models import naive_bayes
    from dpinfer.samplers.data_augmentation import run_loglinear

    ref = naive_bayes.load_reference(
        *naive_bayes.reference_files(JU2022_DATA), prior_concentration=2.0
    )
    mech = Laplace.calibrated(1.0, naive_bayes.sensitivity_l1(ref.shape[0]))
    scale = mech.scale
    released = ref.counts + mech.noise(np.random.default_rng(2022), ref.counts.shape)

    def chain(rng, iterations):
        problem = naive_bayes.Problem(released, scale, ref.alpha_p, ref.alpha, ref.n_records)
        return run_loglinear(problem, rng, **_split(iterations))

    return chain, (released, ref.alpha_p, ref.alpha)


def _binomial_inputs():
    import numpy as np

    from dpinfer.mechanisms import Laplace

    n, eps = 1000, 0.1  # config: chapter4 binomial, sensitivity 1, Beta(10, 10)
    mech = Laplace.calibrated(eps, 1.0)
    y = 300.0 + float(mech.noise(np.random.default_rng(2020)))
    return y, n, (10.0, 10.0), mech


def _noise_aware_binomial():
    from dpinfer.models import expfam
    from dpinfer.samplers.noise_aware_gibbs import run_binomial

    y, n, prior, mech = _binomial_inputs()

    def chain(rng, iterations):
        return run_binomial(expfam.Problem(y, n, prior, mech), rng=rng, **_split(iterations))

    return chain, (y, n, prior, mech.scale)


def _record_wise_binomial():
    from dpinfer.models import expfam
    from dpinfer.samplers.record_wise_binomial import run_record_wise_binomial

    y, n, prior, mech = _binomial_inputs()

    def chain(rng, iterations):
        return run_record_wise_binomial(
            expfam.Problem(y, n, prior, mech), rng=rng, **_split(iterations)
        )

    return chain, (y, n, prior, mech.scale)


def _nig_release(n):
    import numpy as np

    from dpinfer.models.linreg_nig import NIGPrior, NIWPrior, release_statistics, simulate_dataset

    # config: bernstein2020 chapter5 prior and data prior, synthetic bounds [-1, 1]
    prior = NIGPrior(np.zeros(2), np.diag([1.0 / 38.0, 1.0 / 38.0]), 20.0, 0.5)
    data_prior = NIWPrior(0.0, 1.0, 1.0, 50.0)
    rng = np.random.default_rng(12)
    sim = simulate_dataset(rng, n, prior, data_prior)
    release = release_statistics(rng, sim["x"], sim["y"], 1.0, (-1.0, 1.0))
    inputs = (release.z, release.z_half, release.moment_sums, release.mechanism.scale)
    return release, prior, data_prior, inputs


def _mcmc_ind():
    from dpinfer.models import linreg_nig
    from dpinfer.samplers.mcmc_ind import run_mcmc_ind

    release, prior, data_prior, inputs = _nig_release(100)

    def chain(rng, iterations):
        return run_mcmc_ind(
            linreg_nig.Problem(release, prior, data_prior), rng, **_split(iterations)
        )

    return chain, inputs


def _gibbs_ss_update():
    from dpinfer.models import linreg_nig
    from dpinfer.samplers.gibbs_ss import run_gibbs_ss_update

    release, prior, data_prior, inputs = _nig_release(1000)

    def chain(rng, iterations):
        return run_gibbs_ss_update(
            linreg_nig.Problem(release, prior, data_prior), rng, **_split(iterations)
        )

    return chain, inputs


def _lognormal():
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
    truth = Truth()
    X = simulate_design(rng, truth.n)
    y = simulate_outcomes(rng, X, truth)
    noise = ReleaseNoise.of(0.1, 0.1)
    yn, Xn = release(rng, y, X, noise)

    def chain(rng, iterations):
        return run_noisy(Problem(yn, Xn, noise), rng, **_split(iterations))

    return chain, (yn, Xn)


def _banana():
    import numpy as np

    from dpinfer.models import dp_mcmc

    spec = dict(  # params.yaml models: easy-2d
        family="banana",
        dim=2,
        n=100_000,
        a=20.0,
        temperature=1.0,
        prior_variance=1000,
        theta_true=[0.0, 3.0],
        likelihood_variance={"coord1": 20, "coord2": 2.5, "coord3_and_up": 1},
    )
    return dp_mcmc.make_problem("easy-2d", spec, np.random.default_rng(43247))


def _dp(module, name, hyper):
    def build():
        import importlib

        from dpinfer.samplers.registry import dp_chain_lengths

        run = getattr(importlib.import_module(f"dpinfer.samplers.{module}"), name)
        problem, h = _banana(), hyper()

        def chain(rng, iterations):
            lengths = dp_chain_lengths(iterations)
            return run(problem, rng, start=problem.theta_true, **h, **lengths)

        return chain, (problem.data, problem.params, problem.theta_true)

    return build


def _vcorr():
    """The package's V_corr mixture, read by the loader of whichever version is imported (it
    moved from the DP Barker sampler to ``dpinfer.models.barker_correction``)."""
    try:
        from dpinfer.models.barker_correction import load_vcorr
    except ImportError:
        from dpinfer.samplers.dp_barker import load_vcorr
    return load_vcorr(VCORR_FILE)


# the function timed: (builder, iterations of the timed chain, about 0.4 CPU s at 26b837c);
# the raisa2021 hyperparameters are those of easy-2d in config/data/raisa2021/params.yaml
FAMILIES = {
    "run_loglinear": (_loglinear, 20_000),
    "run_binomial": (_noise_aware_binomial, 2_000_000),
    "run_record_wise_binomial": (_record_wise_binomial, 20_000),
    "run_mcmc_ind": (_mcmc_ind, 30_000),
    "run_gibbs_ss_update": (_gibbs_ss_update, 100_000),
    "run_noisy": (_lognormal, 2_000),
    "run_dpps": (
        _dp("dp_penalty", "run_dpps", lambda: dict(tau=0.1, prop_sd=0.008, clip_bound=2.0)),
        8_000,
    ),
    "run_mdpps": (
        _dp(
            "dp_minibatch",
            "run_mdpps",
            lambda: dict(
                tau_variance_multiplier=0.7, prop_sd=0.001, clip_bound=1.0, batch_size=1000
            ),
        ),
        20_000,
    ),
    "run_hmc": (
        _dp(
            "dp_hmc",
            "run_hmc",
            lambda: dict(
                tau_l=0.1,
                tau_g=0.4,
                L=10,
                eta=0.0005,
                mass_diag=1.0,
                clip_bound_llr=2.0,
                clip_bound_grad=1.0,
            ),
        ),
        200,
    ),
    "run_barker": (
        _dp(
            "dp_barker",
            "run_barker",
            lambda: dict(prop_sd=0.0008, batch_size=1300, vcorr=_vcorr()),
        ),
        10_000,
    ),
}


# ----------------------------------------------------------------------------- the worker
def _fingerprint(inputs) -> str:
    import hashlib

    import numpy as np

    h = hashlib.sha256()
    for x in inputs:
        h.update(np.ascontiguousarray(np.asarray(x, dtype=float)).tobytes())
    return h.hexdigest()[:12]


def _draws_hash(chain) -> str:
    import hashlib

    import numpy as np

    return hashlib.sha256(np.ascontiguousarray(chain.draws).tobytes()).hexdigest()[:12]


def _say(**msg) -> None:
    print(TAG + json.dumps(msg), flush=True)


def worker(names, length: float) -> None:
    """Build and warm up every family, then run chains on request: stdin lines ``name seed``,
    one reply line each; an empty line or end of input ends the worker."""
    import numpy as np

    import dpinfer

    t0 = time.perf_counter()
    chains, iters, finger = {}, {}, {}
    for name in names:
        build, full = FAMILIES[name]
        chain, inputs = build()
        chains[name], iters[name] = chain, max(10, round(full * length))
        finger[name] = _fingerprint(inputs)
        chain(np.random.default_rng(0), 10)  # compile
        chain(np.random.default_rng(0), iters[name])  # warm at full length
    _say(
        ready=True,
        package=str(Path(dpinfer.__file__).resolve().parents[1]),
        warmup=time.perf_counter() - t0,
        iterations=iters,
        inputs=finger,
    )
    for line in sys.stdin:
        if not line.strip():
            break
        name, seed = line.rsplit(" ", 1)
        rng = np.random.default_rng(int(seed))
        t = time.process_time()
        chain = chains[name](rng, iters[name])
        seconds = time.process_time() - t
        _say(name=name, seconds=seconds, draws=_draws_hash(chain))


# ----------------------------------------------------------------------------- the parent
class Worker:
    """One version's worker process, with its own numba cache directory."""

    def __init__(self, label: str, src: Path, names, length: float):
        self.label, self.src = label, src
        self.cache = tempfile.mkdtemp(prefix=f"bench_samplers_cache_{label}_")
        env = dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=self.cache)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")  # no idle BLAS threads spinning into the CPU seconds
        self.proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                json.dumps(list(names)),
                "--length",
                str(length),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )

    def read(self) -> dict:
        for line in self.proc.stdout:
            if line.startswith(TAG):
                return json.loads(line[len(TAG) :])
            sys.stderr.write(f"[{self.label}] {line}")
        raise RuntimeError(f"the {self.label} worker stopped (exit code {self.proc.wait()})")

    def run(self, name: str, seed: int) -> dict:
        self.proc.stdin.write(f"{name} {seed}\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.cache, ignore_errors=True)


def _iqr(values) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


def compare(baseline: str, names, repeat: int, length: float) -> None:
    t_start = time.perf_counter()
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} cores; baseline {baseline}, current tree")
    srcs = {"baseline": extract_src(baseline, "bench_samplers_"), "current": ROOT / "src"}
    workers = {k: Worker(k, src, names, length) for k, src in srcs.items()}
    try:
        ready = {k: w.read() for k, w in workers.items()}  # both compile at once
        for k, w in workers.items():
            if Path(ready[k]["package"]) != srcs[k].resolve():
                raise RuntimeError(f"the {k} worker imported dpinfer from {ready[k]['package']}")
        print(
            "warm-up (compile + one untimed chain each, both versions at once): "
            + ", ".join(f"{k} {ready[k]['warmup']:.0f} s" for k in workers)
        )
        secs = {k: {n: [] for n in names} for k in workers}
        draws = {k: {} for k in workers}
        for r in range(repeat):
            order = ("baseline", "current") if r % 2 == 0 else ("current", "baseline")
            for name in names:
                for k in order:
                    out = workers[k].run(name, 1000 + r)
                    secs[k][name].append(out["seconds"])
                    draws[k].setdefault(name, out["draws"])
            print(f"  repeat {r + 1}/{repeat} done", flush=True)
    finally:
        for w in workers.values():
            w.close()

    print(
        f"\nCPU seconds of one chain (median of {repeat}); ratio = current / baseline, median of "
        "the paired runs, IQR of the paired ratios as the noise"
    )
    head = (
        f"{'function':26s} {'iters':>9s} {'baseline s':>10s} {'current s':>9s} {'ratio':>6s} "
        f"{'IQR of ratios':>15s}  {'verdict':7s} {'same draws':10s}"
    )
    print(head)
    print("-" * len(head))
    odd = []
    for name in names:
        b, c = secs["baseline"][name], secs["current"][name]
        ratios = [x / y for x, y in zip(c, b)]
        q1, q3 = _iqr(ratios)
        verdict = "slower" if q1 > 1.0 + CALL else "faster" if q3 < 1.0 - CALL else ""
        same = "yes" if draws["baseline"][name] == draws["current"][name] else "no"
        if ready["baseline"]["inputs"][name] != ready["current"]["inputs"][name]:
            same += " (inputs differ!)"
            odd.append(name)
        print(
            f"{name:26s} {ready['current']['iterations'][name]:9d} {statistics.median(b):10.3f} "
            f"{statistics.median(c):9.3f} {statistics.median(ratios):6.3f} "
            f"[{q1:5.3f}, {q3:5.3f}]  {verdict:7s} {same}"
        )
    if odd:
        print(f"the two versions built different inputs for: {', '.join(odd)}")
    print(
        f"\nload average {os.getloadavg()[0]:.2f} at the end; "
        f"wall time {time.perf_counter() - t_start:.0f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--baseline", default=BASELINE, help=f"git ref to compare with ({BASELINE})")
    ap.add_argument(
        "--repeat", type=int, help=f"timed pairs per family ({REPEAT}; --quick {QUICK_REPEAT})"
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_REPEAT} repeats and chains {QUICK_LENGTH:g} times as long",
    )
    ap.add_argument(
        "--family", choices=list(FAMILIES), action="append", help="only this function (repeatable)"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--length", type=float, default=1.0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(json.loads(args.worker), args.length)
        return
    repeat = args.repeat or (QUICK_REPEAT if args.quick else REPEAT)
    if repeat < 1:
        ap.error("--repeat must be positive")
    names = args.family or list(FAMILIES)
    compare(args.baseline, names, repeat, QUICK_LENGTH if args.quick else 1.0)


if __name__ == "__main__":
    main()
