"""raim2021 direct sampler: knots against the 2021 package, draws against the exact target.

The exact target f(x) proportional to w(x) g(x) is computed independently of the sampler: by
numerical integration of the density on a fine grid (continuous base) or by enumerating the
integers (double geometric base). Each goodness-of-fit test is paired with a slightly wrong
target that the same draws must reject, so a test that cannot fail would show up.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer.mechanisms import DoubleGeometric, Laplace
from dpinfer.samplers.direct import (
    Base,
    DirectSettings,
    Target,
    Weight,
    base_quantile_points,
    basic_direct_sample,
    direct_sample,
    envelope_acceptance,
    stepdown,
)
from dpinfer.samplers.direct.quantile_knots import R_HI, R_LO, R_SCALED, quantile_envelope
from dpinfer.studies.raim2021.paper import PACKAGE_EXAMPLE, PACKAGE_KNOTS, knots_match

N_DRAWS = 60_000
ALPHA = 1e-3


# ----------------------------------------------------------------------------- exact targets
def _log_w(w: Weight, x):
    x = np.asarray(x, float)
    if w.kind == "lognormal":
        out = np.full(x.shape, -np.inf)
        ok = x < w.z
        r = np.log(w.z - x[ok])
        out[ok] = -r - (r - w.mu) ** 2 / (2 * w.s2)
        return out
    return -((w.z - x - w.mu) ** 2) / (2 * w.s2)


def _log_g(b: Base, x):
    x = np.asarray(x, float)
    if b.kind == "laplace":
        return -np.abs(x) / b.par - math.log(2 * b.par)
    return math.log(b.par / (2 - b.par)) + np.abs(x) * math.log1p(-b.par)


def _continuous_cdf(w: Weight, b: Base, lo: float, hi: float, n_grid: int = 400_001):
    grid = np.linspace(lo, hi, n_grid)
    grid = np.union1d(grid, [0.0]) if lo < 0 < hi else grid  # the Laplace kink
    logf = _log_w(w, grid) + _log_g(b, grid)
    f = np.exp(logf - logf.max())
    cum = np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(grid))])
    cum /= cum[-1]
    return lambda x: np.interp(x, grid, cum)


def _discrete_pmf(w: Weight, b: Base, k_lo: int, k_hi: int):
    k = np.arange(k_lo, k_hi + 1, dtype=float)
    logf = _log_w(w, k) + _log_g(b, k)
    p = np.exp(logf - logf.max())
    return k, p / p.sum()


def _chi2_pvalue(draws, k, p):
    """Chi-square goodness of fit, cells pooled so that every expected count is >= 5."""
    n = draws.size
    counts = np.bincount((draws - k[0]).astype(np.int64), minlength=k.size)[: k.size]
    assert counts.sum() == n, "draws outside the enumerated support"
    obs, exp, co, ce = [], [], 0.0, 0.0
    for c, e in zip(counts, p * n):
        co += c
        ce += e
        if ce >= 5:
            obs.append(co)
            exp.append(ce)
            co = ce = 0.0
    obs[-1] += co
    exp[-1] += ce
    obs, exp = np.array(obs), np.array(exp)
    if obs.size < 2:
        return 1.0
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


# ----------------------------------------------------------------------------- knots (FACTS.md 5)
@pytest.mark.parametrize("z,method", sorted(PACKAGE_KNOTS))
def test_knots_match_reference(z, method):
    """Slides' knot figure: LN(0,1) weight, Laplace(0, 0.4), N = 5, tol 1e-10, against the
    package's knots (FACTS.md Sec. 5, kept in dpinfer.studies.raim2021.paper)."""
    env = stepdown(
        Weight("lognormal", z, 0.0, 1.0),
        Base("laplace", 0.4),
        DirectSettings(method=method, n_knots=5, tol=1e-10),
    )
    u = np.exp(env["log_u"][1:-1])
    p = np.exp(env["log_h"][1:-1])
    ref_u, ref_p = map(np.asarray, PACKAGE_KNOTS[(z, method)])
    assert u.size == 6
    rtol = np.where(ref_u < 1e-100, 2e-2, 1e-4)  # 2.9e-261 is printed with 2 digits
    assert np.all(np.abs(u / ref_u - 1) < rtol), (u, ref_u)
    big = ref_p > 1e-3
    np.testing.assert_allclose(p[big], ref_p[big], rtol=5e-4)  # 4-5 printed digits
    # printed with 2 digits; the package's plain CDF difference gives exactly 0 where the
    # accurate tail formula gives 5.6e-17
    np.testing.assert_allclose(p[~big], ref_p[~big], rtol=0.1, atol=1e-15)
    assert knots_match(u, p, ref_u, ref_p)  # the scorecard's rule agrees


def test_code_example_envelope():
    """Code example (z=100, mu=5, s2=9, Laplace 0.2; N=100, tol 1e-8): u_L, u_H, a, psi/c."""
    w, b = Weight("lognormal", 100.0, 5.0, 9.0), Base("laplace", 0.2)
    st = DirectSettings(method="small_rects", n_knots=100, tol=1e-8)
    env = stepdown(w, b, st)
    u = np.exp(env["log_u"][1:-1])
    assert u.size == 101
    ref = PACKAGE_EXAMPLE
    np.testing.assert_allclose([u[0], u[-1]], [ref["u_L"], ref["u_H"]], rtol=1e-5)
    np.testing.assert_allclose(math.exp(env["log_a"]), ref["a"], rtol=1e-5)
    np.testing.assert_allclose(envelope_acceptance(w, b, st), ref["psi_c"] / ref["a"], rtol=2e-5)


# ----------------------------------------------------------------------------- exact draws
# (name, weight, base, a wrong target the draws must reject: (weight, base))
CONTINUOUS = [
    (
        "code example",
        Weight("lognormal", 100.0, 5.0, 9.0),
        Base("laplace", 0.2),
        (Weight("lognormal", 100.0, 5.0, 9.0), Base("laplace", 0.25)),
    ),
    (
        "z = 2, u_L underflows",
        Weight("lognormal", 2.0, 0.0, 1.0),
        Base("laplace", 0.4),
        (Weight("lognormal", 2.0, 0.1, 1.0), Base("laplace", 0.4)),
    ),
    (
        "z = 200",
        Weight("lognormal", 200.0, 0.0, 1.0),
        Base("laplace", 0.4),
        (Weight("lognormal", 200.0, 0.0, 1.0), Base("laplace", 0.5)),
    ),
    (
        "normal weight",
        Weight("normal", 0.3, 0.1, 0.04),
        Base("laplace", 0.2),
        (Weight("normal", 0.3, 0.13, 0.04), Base("laplace", 0.2)),
    ),
    (
        "narrow weight in the base tail",
        Weight("normal", 0.0, 3.0, 0.01),
        Base("laplace", 0.5),
        (Weight("normal", 0.0, 3.01, 0.01), Base("laplace", 0.5)),
    ),
]
METHODS = [
    DirectSettings(),
    DirectSettings(method="small_rects", n_knots=8, tol=1e-6),
    DirectSettings(method="equal_steps", n_knots=3, tol=1e-6),
    DirectSettings(weight_sds=(1.0,)),
    DirectSettings(levels=(0.5,), weight_sds=(1.0,)),
]  # the pipeline's (config.yaml)
IDS = ["quantile", "small_rects", "equal_steps", "quantile_1sd", "quantile_pipeline"]


def _cdf_for(weight, base, x):
    pad = 10 * x.std() + 1e-9
    hi = min(x.max() + pad, weight.z) if weight.kind == "lognormal" else x.max() + pad
    return _continuous_cdf(weight, base, x.min() - pad, hi)


def _max_proposals(settings, name=""):
    # the fast rule trades acceptance for fewer knots; the 2021 rules with few knots need more;
    # a weight much narrower than the base, far in its tail, is the fast rule's hardest case
    if settings.method != "quantile":
        return 10.0
    if settings.levels == (0.5,):
        # the pipeline's single quantile knot trades the far tail (z = 200: w 500 base scales
        # out, about 20 proposals) for speed where the Gibbs sampler spends its time
        return 25.0
    return 8.0 if name == "narrow weight in the base tail" else 2.5


@pytest.mark.parametrize("settings", METHODS, ids=IDS)
@pytest.mark.parametrize("name,weight,base,wrong", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_draws_match_target(name, weight, base, wrong, settings):
    x, props = direct_sample(
        N_DRAWS, weight, base, np.random.default_rng(7), settings, rebuild=True
    )
    assert stats.kstest(x, _cdf_for(weight, base, x)).pvalue > ALPHA
    assert stats.kstest(x, _cdf_for(*wrong, x)).pvalue < ALPHA
    assert props.mean() < _max_proposals(settings, name)


DISCRETE = [
    (
        "non-integer z",
        Weight("lognormal", 2.5, 0.0, 1.0),
        Base("dgeom", 0.1),
        (Weight("lognormal", 2.5, 0.0, 1.0), Base("dgeom", 0.15)),
    ),
    (
        "integer z = 2",
        Weight("lognormal", 2.0, 0.0, 1.0),
        Base("dgeom", 0.4),
        (Weight("lognormal", 2.0, 0.0, 1.0), Base("dgeom", 0.45)),
    ),
    (
        "large noise",
        Weight("lognormal", 150.3, 5.0, 1.0),
        Base("dgeom", 0.01),
        (Weight("lognormal", 150.3, 5.1, 1.0), Base("dgeom", 0.01)),
    ),
    (
        "negative z",
        Weight("lognormal", -3.7, 0.5, 0.5),
        Base("dgeom", 0.1),
        (Weight("lognormal", -3.7, 0.5, 0.5), Base("dgeom", 0.15)),
    ),
    (
        "y far above noise",
        Weight("lognormal", 1500.2, 7.3, 0.2),
        Base("dgeom", 0.4),
        (Weight("lognormal", 1500.2, 7.3, 0.2), Base("dgeom", 0.5)),
    ),
]


@pytest.mark.parametrize(
    "settings", [METHODS[i] for i in (0, 1, 3, 4)], ids=[IDS[i] for i in (0, 1, 3, 4)]
)
@pytest.mark.parametrize("name,weight,base,wrong", DISCRETE, ids=[c[0] for c in DISCRETE])
def test_integer_draws_match_target(name, weight, base, wrong, settings):
    rng = np.random.default_rng(11)
    x, props = direct_sample(N_DRAWS, weight, base, rng, settings, rebuild=True)
    assert np.all(x == np.round(x)) and np.all(x < weight.z)
    k, p = _discrete_pmf(weight, base, int(x.min()) - 2000, int(math.ceil(weight.z)) - 1)
    assert _chi2_pvalue(x, k, p) > ALPHA
    k2, p2 = _discrete_pmf(*wrong, int(k[0]), int(k[-1]))
    assert _chi2_pvalue(x, k2, p2) < ALPHA
    assert props.mean() < _max_proposals(settings, name)


def _quantile_envelope(weight, base, st, lin):
    lu, lh, ws = st.workspace()
    q = base_quantile_points(base, st.levels, st.weight_sds)
    m = quantile_envelope(Target.of(weight, base), q, lu, lh, ws, lin)
    return m, lu, ws


@pytest.mark.parametrize("st", [METHODS[0], METHODS[4]], ids=[IDS[0], IDS[4]])
@pytest.mark.parametrize(
    "name,weight,base",
    [c[:3] for c in CONTINUOUS + DISCRETE],
    ids=[c[0] for c in CONTINUOUS + DISCRETE],
)
def test_quantile_envelope_same_in_log_and_linear_scale(name, weight, base, st):
    """The quantile rule's linear-scale envelope (tail factors) and its log-scale fallback
    (log-probabilities) have the same knots, intervals and heights, so the draw tests above,
    which run in linear scale, cover the fallback's law too."""
    m1, lu1, ws1 = _quantile_envelope(weight, base, st, True)
    m0, lu0, ws0 = _quantile_envelope(weight, base, st, False)
    assert m1 == m0 > 2
    np.testing.assert_array_equal(lu1[:m1], lu0[:m0])
    for row in (R_LO, R_HI):
        np.testing.assert_array_equal(ws1[row, : m1 - 1], ws0[row, : m0 - 1])
    np.testing.assert_allclose(
        ws1[R_SCALED, : m1 - 1], ws0[R_SCALED, : m0 - 1], rtol=1e-9, atol=1e-300
    )


def test_far_tail_falls_back_to_log_scale():
    """Base mass exp(-800) under a narrow weight: the linear scale's area is not
    representable, so the builder asks for the log-scale envelope (which exists)."""
    w, b = Weight("normal", 0.0, 400.0, 1.0), Base("laplace", 0.5)
    assert _quantile_envelope(w, b, DirectSettings(), True)[0] == -1
    assert _quantile_envelope(w, b, DirectSettings(), False)[0] > 2


def test_integer_draws_at_integer_z_never_reach_z():
    x, _ = direct_sample(
        5000, Weight("lognormal", 3.0, -2.0, 1.0), Base("dgeom", 0.3), np.random.default_rng(3)
    )
    assert x.max() <= 2.0


def test_basic_direct_sampler_runs_and_fails_where_documented():
    """BD sampler: fine where A_u has sizeable base mass; exhausts its tries in the code
    example, where P(A_u) is concentrated on u < 0.018 (slides, "Some issues")."""
    rng = np.random.default_rng(5)
    x, tries = basic_direct_sample(
        2000, Weight("normal", 0.3, 0.1, 0.04), Base("laplace", 0.2), rng
    )
    assert np.isfinite(x).all() and tries.mean() < 20
    x, tries = basic_direct_sample(
        200, Weight("lognormal", 100.0, 5.0, 9.0), Base("laplace", 0.2), rng, max_iter=2000
    )
    assert np.isnan(x).mean() > 0.1 and tries.mean() > 500


def test_base_of_a_mechanism_record():
    """The sampler's base takes its law from the release's mechanism record."""
    assert Base.of(Laplace(scale=0.2)) == Base("laplace", 0.2)
    assert Base.of(DoubleGeometric(rho=0.3)) == Base("dgeom", 0.3)
    with pytest.raises(TypeError):
        Base.of(0.2)


def test_invalid_arguments_are_refused():
    with pytest.raises(ValueError):
        Weight("gamma", 0.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        Weight("normal", 0.0, 0.0, -1.0)
    with pytest.raises(ValueError):
        Base("dgeom", 1.5)
    with pytest.raises(ValueError):
        DirectSettings(method="bisect")
    with pytest.raises(ValueError, match="n_knots must be 0 for the quantile rule"):
        DirectSettings(method="quantile", n_knots=5)


def test_a_borrowed_view_shares_the_owners_memory_and_refuses_strided_arrays():
    """The Gibbs sweeps pass borrowed views (no reference counts) to the direct sampler: a view
    reads and writes the owner's data, keeps its shape, and a non-contiguous array is refused."""
    from numba import njit

    from dpinfer.samplers.direct.borrowed import borrow

    @njit
    def write_through(a):
        b = borrow(a)
        b[1, 2] = -1.0
        return b.shape[0], b.shape[1], b.sum()

    a = np.arange(12.0).reshape(3, 4)
    rows, cols, total = write_through(a)
    assert (rows, cols) == (3, 4) and a[1, 2] == -1.0 and total == a.sum()
    with pytest.raises(ValueError, match="C-contiguous"):
        write_through(np.ones((3, 8))[:, ::2])


def test_a_borrowed_generator_draws_the_owners_stream_and_advances_it():
    """The sweeps draw through a borrowed Generator (no reference counts): its draws are the
    owner's, the owner's state moves on with them, and only a Generator can be borrowed."""
    from numba import njit
    from numba.core.errors import TypingError

    from dpinfer.samplers.direct.borrowed import borrow_generator

    @njit
    def draws(rng, n):
        b = borrow_generator(rng)
        out = np.empty(n)
        for i in range(n):
            out[i] = b.random() if i % 2 == 0 else b.standard_normal()
        return out

    owner, twin = np.random.default_rng(7), np.random.default_rng(7)
    got = draws(owner, 6)
    expected = [twin.random() if i % 2 == 0 else twin.standard_normal() for i in range(6)]
    assert np.array_equal(got, expected)
    assert owner.random() == twin.random()  # the owner's stream advanced past the draws
    with pytest.raises(TypingError):
        draws(np.ones(3), 2)
