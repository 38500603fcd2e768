"""Speed of the raim2021 direct sampler and Gibbs sampler: current code against a baseline
commit, in one run, and against the published / peer figures.

Run from the repository root:

    .venv/bin/python benchmarks/bench_raim2021.py [--quick] [--baseline REF] [--sweep]

The baseline (default: 443cc5c, the code before issue 14) is extracted from git into a
temporary package ``dpinfer_baseline`` and imported beside the current ``dpinfer``, so both are
timed in the same process, interleaved, best of ``--repeat`` runs: the ratios do not depend on
how loaded the machine was during one of them.

Sections:
1. direct sampler, code example (z=100, mu=5, s2=9, Laplace 0.2): 10,000 calls with a fresh
   envelope each, and one call of n = 10,000 (current code, against the author's C++);
2. profile per latent draw on the (z, mu, s2) of a real Gibbs run (after 1,000 iterations):
   nanoseconds to build the envelope and for the whole draw, and proposals per draw, for the
   y's (lognormal weight, DGeom base) and the xi's (normal weight, Laplace base);
3. one Gibbs run (n = 200, 2,000 iterations) per (rho, lambda) setting: CPU seconds of
   Algorithm 2, baseline / current, and the whole study's estimate on 2 cores;
4. ``--sweep``: the current code with other knot rules (levels x weight_sds), the experiment
   behind config/config.yaml's ``raim2021.direct``.

Peer figures (reference/raim2021/FACTS.md Sec. 6; the slides): author's C++ sampler, 10,000
calls with n = 1: 1.42 s at tol 1e-10; one call with n = 10,000: 0.031 s; one Gibbs run:
142.3 s re-run on a shared 2-vCPU machine, 129.29 s in the slides (i7-2600).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import os
import sys
import time
from pathlib import Path

import numpy as np
import yaml
from baseline_tree import extract_src
from numba import njit

import dpinfer
from dpinfer.models.lognormal_regression import (
    ReleaseNoise,
    Truth,
    release,
    simulate_design,
    simulate_outcomes,
)
from dpinfer.samplers.direct import DirectSettings
from dpinfer.samplers.direct.borrowed import borrow, borrow_generator

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "443cc5c"
with open(ROOT / "config" / "config.yaml", encoding="utf-8") as _fh:
    _CFG = yaml.safe_load(_fh)["raim2021"]
SETTINGS = [(r, lam) for r in _CFG["rhos"] for lam in _CFG["lambdas"]]
QUICK_SETTINGS = [(0.01, 0.2), (0.1, 0.1), (0.4, 0.05)]
PEER_CALLS_N1, PEER_ONE_CALL, PEER_GIBBS, PAPER_GIBBS = 1.42, 0.031, 142.3, 129.29


# ----------------------------------------------------------------------------- the two packages


def _diagnostics(info) -> dict:
    """The chain's proposal counts and time split by name: ``info.extra`` of the baseline tree
    (before the typed details), the fields of ``info.detail`` now."""
    detail = getattr(info, "detail", None)
    return dataclasses.asdict(detail) if detail is not None else dict(info.extra)


def load_baseline(ref: str):
    """``dpinfer`` at git ``ref`` as the package ``dpinfer_baseline`` (its raim2021 modules use
    relative imports only), extracted into a temporary directory."""
    src = extract_src(ref, "bench_raim2021_")
    (src / "dpinfer").rename(src / "dpinfer_baseline")
    sys.path.insert(0, str(src))
    return importlib.import_module("dpinfer_baseline")


class Impl:
    """One implementation's Gibbs sampler, direct sampler and settings."""

    def __init__(self, name, pkg, direct_cfg):
        self.name = name
        lg = importlib.import_module(pkg.__name__ + ".samplers.lognormal_gibbs")
        d = importlib.import_module(pkg.__name__ + ".samplers.direct")
        env = importlib.import_module(pkg.__name__ + ".samplers.direct.envelope")
        self.lg, self.d, self.env = lg, d, env
        model = importlib.import_module(pkg.__name__ + ".models.lognormal_regression")
        self.noise_cls, self.problem_cls = model.ReleaseNoise, getattr(model, "Problem", None)
        self.settings = d.DirectSettings.from_config(direct_cfg)
        # kernels take the target (w, g) as one record from the commit that made them do so
        first = next(iter(inspect.signature(env.build_envelope.py_func).parameters))
        self.target_records = first == "target"

    def run_noisy(self, yn, Xn, noise, rng, **options):
        """Algorithm 2 on the release (yn, Xn): by the sampler contract where the tree has it
        (``run_noisy(problem, rng, ...)``), else by the explicit signature it replaced."""
        first = next(iter(inspect.signature(self.lg.run_noisy).parameters))
        if first == "problem":
            return self.lg.run_noisy(self.problem_cls(yn, Xn, noise), rng, **options)
        return self.lg.run_noisy(yn, Xn, noise, rng=rng, **options)

    def workspace(self):
        s = self.settings
        if hasattr(s, "workspace"):
            return s.workspace()
        cap = s.capacity()
        return np.empty(cap), np.empty(cap), np.empty((4, cap))

    def run(self, rho, lam, data, rng, timed=False, settings=None):
        _, _, yn, Xn = data
        return self.run_noisy(
            yn,
            Xn,
            self.noise_cls.of(rho, lam),
            rng,
            burnin=1000,
            keep=1000,
            direct=settings or self.settings,
            timed=timed,
        )


def _data(rho, lam, seed=1234):
    rng = np.random.default_rng(seed)
    truth = Truth()
    X = simulate_design(rng, truth.n)
    y = simulate_outcomes(rng, X, truth)
    y_noisy, X_noisy = release(rng, y, X, ReleaseNoise.of(rho, lam))
    return y, X, y_noisy, X_noisy


# ----------------------------------------------------------------------------- 1. code example
def bench_direct(cur: Impl):
    d = cur.d
    w, b = d.Weight("lognormal", 100.0, 5.0, 9.0), d.Base("laplace", 0.2)
    rng = np.random.default_rng(1)
    print("1. direct sampler, code example (z=100, mu=5, s2=9, Laplace 0.2), current code")
    for st in (
        cur.settings,
        DirectSettings(),
        DirectSettings(method="small_rects", n_knots=100, tol=1e-10),
        DirectSettings(method="small_rects", n_knots=10, tol=1e-6),
    ):
        d.direct_sample(10, w, b, rng, st, rebuild=True)  # compile
        t1 = _best(lambda: d.direct_sample(10_000, w, b, rng, st, rebuild=True))
        t2 = _best(lambda: d.direct_sample(10_000, w, b, rng, st, rebuild=False))
        print(
            f"   {st.method:11s} N={st.n_knots:3d} levels={len(st.levels)} "
            f"sds={len(st.weight_sds)}: 10,000 calls n=1 {t1:.4f} s "
            f"({PEER_CALLS_N1 / t1:5.0f}x peer); one call"
            f" n=10,000 {t2:.4f} s ({PEER_ONE_CALL / t2:4.1f}x peer)"
        )


def _best(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# ----------------------------------------------------------------------------- 2. profile
# Both implementations' kernels get borrowed views and generator, as inside the Gibbs sweeps.
@njit
def _envelopes(build, reps, wt, z, mu, s2, bt, par, method, q, lu, lh, ws):
    q, lu, lh, ws = borrow(q), borrow(lu), borrow(lh), borrow(ws)
    m = 0
    for _ in range(reps):
        for i in range(z.size):
            m += build(wt, z[i], mu[i], s2, bt, par, method, 0, 1e-10, q, lu, lh, ws)
    return m


@njit
def _draws(draw, reps, wt, z, mu, s2, bt, par, method, q, lu, lh, ws, rng):
    q, lu, lh, ws, rng = borrow(q), borrow(lu), borrow(lh), borrow(ws), borrow_generator(rng)
    props = 0
    for _ in range(reps):
        for i in range(z.size):
            _, p = draw(
                wt, z[i], mu[i], s2, bt, par, method, 0, 1e-10, q, True, 100_000, lu, lh, ws, rng
            )
            props += p
    return props


# The same two loops for a tree whose kernels take the target as one record (a tuple here).
@njit
def _envelopes_of_targets(build, reps, wt, z, mu, s2, bt, par, method, q, lu, lh, ws):
    q, lu, lh, ws = borrow(q), borrow(lu), borrow(lh), borrow(ws)
    m = 0
    for _ in range(reps):
        for i in range(z.size):
            m += build((wt, z[i], mu[i], s2, bt, par), method, 0, 1e-10, q, lu, lh, ws)
    return m


@njit
def _draws_of_targets(draw, reps, wt, z, mu, s2, bt, par, direct, q, workspace, rng):
    q, rng = borrow(q), borrow_generator(rng)
    props = 0
    for _ in range(reps):
        for i in range(z.size):
            _, p = draw((wt, z[i], mu[i], s2, bt, par), direct, q, workspace, rng)
            props += p
    return props


def _profile_loops(impl: Impl, meth, q, lu, lh, ws):
    """(envelopes(reps, wt, z, mu, s2, bt, par), draws(reps, wt, z, mu, s2, bt, par, rng)) of
    one implementation, whichever kernel signature its tree has."""
    env = impl.env
    if not impl.target_records:
        build, draw = env.build_envelope, env.direct_draw
        return (
            lambda reps, *t: _envelopes(build, reps, *t, meth, q, lu, lh, ws),
            lambda reps, *t, rng: _draws(draw, reps, *t, meth, q, lu, lh, ws, rng),
        )
    build, draw = env.build_envelope, env.target_draw
    direct = env.DirectKernel(meth, 0, 1e-10, True, 100_000)
    workspace = env.Workspace(lu, lh, ws)
    return (
        lambda reps, *t: _envelopes_of_targets(build, reps, *t, meth, q, lu, lh, ws),
        lambda reps, *t, rng: _draws_of_targets(draw, reps, *t, direct, q, workspace, rng),
    )


def gibbs_state(impl: Impl, rho, lam, iterations=1000):
    """(z, mu, s2) of every y and every xi draw after ``iterations`` sweeps of Algorithm 2,
    driving the implementation's sweep kernels from Python to read the latent state."""
    lg, st = impl.lg, impl.settings
    _, _, yn, Xn = _data(rho, lam, 1)
    by, bx = impl.d.Base("dgeom", rho), impl.d.Base("laplace", lam)
    qy = impl.d.base_quantile_points(by, st.levels, st.weight_sds)
    qx = impl.d.base_quantile_points(bx, st.levels, st.weight_sds)
    ws = impl.workspace()
    rng = np.random.default_rng(1)
    xn, s2 = Xn[:, 0].copy(), 1.0
    rel = lg.NoisyRelease(yn, xn, rho, lam, qy, qx)
    state = lg.Latents(Xn.copy(), np.zeros(yn.size), np.zeros(2))
    kern = st.kernel()._replace(adapt=True, max_prop=100_000)
    for _ in range(iterations):
        lg.y_sweep(rel, state, s2, kern, ws, rng)
        lg.x_sweep(rel, state, s2, kern, ws, rng)
        s2 = lg.theta_step(*state, s2, 100.0, 2.0, 10.0, rng)
    X, log_y, beta = state
    return ((yn, X @ beta, s2), (xn, (log_y - X[:, 1] * beta[1]) / beta[0], s2 / beta[0] ** 2))


def profile(impls, settings, reps=100):
    print("\n2. profile per latent draw (ns; proposals per draw), states after 1,000 iterations")
    for rho, lam in settings:
        (zy, muy, s2y), (zx, mux, s2x) = gibbs_state(impls[-1], rho, lam)
        for what, wt, bt, par, z, mu, s2 in (
            ("y ", 0, 1, rho, zy, muy, s2y),
            ("xi", 1, 0, lam, zx, mux, s2x),
        ):
            row = []
            for impl in impls:
                base = impl.d.Base("dgeom" if bt else "laplace", par)
                q = impl.d.base_quantile_points(
                    base, impl.settings.levels, impl.settings.weight_sds
                )
                lu, lh, ws = impl.workspace()
                envelopes, draws = _profile_loops(impl, impl.settings.code, q, lu, lh, ws)
                target = (wt, z, mu, s2, bt, par)
                envelopes(1, *target)
                draws(1, *target, rng=np.random.default_rng(0))
                n = reps * z.size
                te = _best(lambda: envelopes(reps, *target))
                props = [0]

                def full():
                    props[0] = draws(reps, *target, rng=np.random.default_rng(0))

                td = _best(full)
                row.append(
                    f"{impl.name} envelope {1e9 * te / n:4.0f} draw {1e9 * td / n:5.0f}"
                    f" ({props[0] / n:.2f})"
                )
            print(f"   rho={rho:<4} lambda={lam:<4} {what}: " + " | ".join(row))


# ----------------------------------------------------------------------------- 3. Gibbs
def bench_gibbs(impls, settings, repeat):
    print(f"\n3. one Gibbs run (Algorithm 2, n = 200, 2,000 iterations), CPU s, best of {repeat}")
    data = {s: _data(*s, seed=1) for s in settings}
    for impl in impls:  # compile
        impl.run_noisy(
            *data[settings[0]][2:],
            impl.noise_cls.of(*settings[0]),
            np.random.default_rng(0),
            burnin=0,
            keep=3,
            direct=impl.settings,
        )
    best = {}
    for r in range(repeat):
        for s in settings:
            for impl in impls:
                c = impl.run(*s, data[s], np.random.default_rng(r))
                key = (s, impl.name)
                if c.info.cpu_seconds < best.get(key, (np.inf,))[0]:
                    best[key] = (c.info.cpu_seconds, _diagnostics(c.info))
    total = {impl.name: 0.0 for impl in impls}
    for s in settings:
        parts = []
        for impl in impls:
            sec, x = best[(s, impl.name)]
            total[impl.name] += sec
            parts.append(
                f"{impl.name} {sec:.3f} s (y {x['proposals_per_y']:.2f}, xi "
                f"{x['proposals_per_xi']:.2f} proposals)"
            )
        ratio = (
            f"  ratio {best[(s, impls[0].name)][0] / best[(s, impls[-1].name)][0]:.2f}"
            if len(impls) > 1
            else ""
        )
        print(f"   rho={s[0]:<4} lambda={s[1]:<4}: " + " | ".join(parts) + ratio)
    cur = impls[-1].name
    mean = {k: v / len(settings) for k, v in total.items()}
    if len(impls) > 1:
        print(
            f"   mean over settings: {impls[0].name} {mean[impls[0].name]:.3f} s, {cur} "
            f"{mean[cur]:.3f} s: {total[impls[0].name] / total[cur]:.2f}x faster"
        )
    s = settings[0]
    for impl in impls:
        x = _diagnostics(impl.run(*s, data[s], np.random.default_rng(0), timed=True).info)
        split = {k: x[f"cpu_seconds_{k}"] for k in ("y", "xi_x", "rest")}
        tot = sum(split.values())
        print(
            f"   {impl.name} split at rho={s[0]} lambda={s[1]} (timed, Python between steps):"
            f" {tot:.3f} s = y {split['y']:.3f} + xi {split['xi_x']:.3f} + rest "
            f"{split['rest']:.3f}; {PEER_GIBBS / tot:.0f}x the author's re-run, "
            f"{PAPER_GIBBS / tot:.0f}x the slides"
        )
    for name, m in mean.items():
        study = 500 * len(SETTINGS) * m / 2
        print(
            f"   study estimate ({name}): {len(SETTINGS)} settings x 500 replications of "
            f"Algorithm 2 on 2 cores: {study / 60:.1f} min"
        )


# ----------------------------------------------------------------------------- 4. sweep
def sweep(cur: Impl, settings, repeat):
    print(
        "\n4. knot-rule sweep (current code): mean CPU s per Gibbs run over "
        f"{len(settings)} settings"
    )
    data = {s: _data(*s, seed=1) for s in settings}
    for levels in ((0.5,), (0.2, 0.8), (0.1, 0.5, 0.9), (1e-12, 0.1, 0.5, 0.9, 1 - 1e-12)):
        for sds in ((1.0,), (1.5,), (1.0, 2.5), (0.5, 1.5, 3.0)):
            st = dataclasses.replace(cur.settings, levels=levels, weight_sds=sds)
            secs = [
                min(
                    cur.run(*s, data[s], np.random.default_rng(r), settings=st).info.cpu_seconds
                    for r in range(repeat)
                )
                for s in settings
            ]
            print(f"   levels {levels!s:36s} weight_sds {sds!s:16s}: {np.mean(secs):.3f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="three settings instead of nine")
    ap.add_argument("--baseline", default=BASELINE, help="git ref to compare with ('' = none)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sweep", action="store_true", help="also sweep the knot rule")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    cur = Impl("current", dpinfer, _CFG["direct"])
    impls = [cur]
    if args.baseline:
        base_cfg = dict(
            _CFG["direct"], levels=[1e-12, 0.1, 0.5, 0.9, 1 - 1e-12], weight_sds=[1.0]
        )  # the baseline's config/config.yaml
        impls = [Impl(f"baseline {args.baseline}", load_baseline(args.baseline), base_cfg), cur]
    settings = QUICK_SETTINGS if args.quick else SETTINGS
    bench_direct(cur)
    profile(impls, QUICK_SETTINGS)
    bench_gibbs(impls, settings, args.repeat)
    if args.sweep:
        sweep(cur, QUICK_SETTINGS, args.repeat)


if __name__ == "__main__":
    main()
