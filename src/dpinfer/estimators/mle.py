"""Regularised maximum likelihood for pairwise MRFs (Section 3.2 of bernstein2020, Chapter 3).

All estimators here maximise Eq. (3.2) with an L2 penalty, written as in the thesis::

    f(theta) = theta . s - N A(theta) - lam ||theta||^2,
    grad = s - N mu(theta) - 2 lam theta,

on flat parameters in the model layout, where ``s = statistics(model, tables)`` are the sufficient
statistics in the same layout (tied edge tables summed per block, node tables from the edge table a
free node is attached to). Working on flat vectors makes tying and node potentials need no special
case. The optimiser is L-BFGS on -f / N (same argmax; the gradient is then a difference of
marginals, so ``tol`` reads as a marginal-probability error); scipy's L-BFGS-B is kept as a
cross-check. Estimators:

- :func:`naive_mle`: noisy tables used as if true (Section 3.2.2), optionally after projecting each
  pseudo-marginal y_C / N onto the simplex (Section 3.2.3, Duchi et al. 2008,
  :func:`project_simplex`);
- :func:`nonprivate_mle`: the true tables;
- :func:`random_estimator`: the "random" reference: Dirichlet(1) marginals per edge table, fitted.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from dpinfer.estimators.fit import Fit, timed_fit
from dpinfer.models.mrf_inference import exact_marginals
from dpinfer.models.pairwise_mrf import statistics

__all__ = ["project_simplex", "fit_mle", "naive_mle", "nonprivate_mle", "random_estimator"]


def project_simplex(v) -> np.ndarray:
    """Euclidean projection of each row (last axis) of ``v`` onto the probability simplex.

    The sort-based algorithm of Duchi et al. (2008, Fig. 1), vectorised over rows: with u the row
    sorted in decreasing order, rho = max{j : u_j - (sum_{i<=j} u_i - 1) / j > 0} and
    tau = (sum_{i<=rho} u_i - 1) / rho; the projection is max(v - tau, 0).
    """
    v = np.asarray(v, dtype=float)
    d = v.shape[-1]
    x = v.reshape(-1, d)
    u = -np.sort(-x, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    ind = np.arange(1, d + 1)
    positive = u - css / ind > 0
    # last index where the condition holds (it holds on a prefix; the last True is robust to ties)
    rho = d - np.argmax(positive[:, ::-1], axis=1)
    tau = css[np.arange(x.shape[0]), rho - 1] / rho
    return np.maximum(x - tau[:, None], 0.0).reshape(v.shape)


def _lbfgs(fun, x0, gtol, max_iter, memory=10):
    """Minimise a smooth function by L-BFGS (Nocedal & Wright 2006, Alg. 7.4/7.5) with Armijo
    backtracking.

    fun(x) -> (f, g). Stops when max|g| <= gtol (status 0), on a failed line search (status 2) or on
    max_iter (status 1). Returns (x, f, g, iterations, status). A non-finite f (inf) is backtracked
    from. Written here because scipy's L-BFGS-B driver costs ~1 ms per call at dim ~ 10^3, more than
    the junction-tree inference it wraps; the numpy two-loop recursion costs microseconds.
    """
    x = np.array(x0, dtype=float)
    f, g = fun(x)
    hist = []
    for k in range(max_iter):
        if np.max(np.abs(g)) <= gtol:
            return x, f, g, k, 0
        q = g.copy()
        coef = []
        for s, y, rho in reversed(hist):
            a = rho * (s @ q)
            q -= a * y
            coef.append(a)
        if hist:
            s, y, _ = hist[-1]
            q *= (s @ y) / (y @ y)
        for (s, y, rho), a in zip(hist, reversed(coef)):
            q += (a - rho * (y @ q)) * s
        d, gd = -q, -(g @ q)
        if not gd < 0:  # not a descent direction: drop the memory, use steepest descent
            hist.clear()
            d, gd = -g, -(g @ g)
        t = 1.0
        for _ in range(50):
            xn = x + t * d
            fn, gn = fun(xn)
            # Armijo, with slack for rounding in f so that tiny final steps are not rejected
            if fn <= f + 1e-4 * t * gd + 8 * np.finfo(float).eps * abs(f):
                break
            t *= 0.5
        else:
            return x, f, g, k, 2
        s, y = xn - x, gn - g
        sy = s @ y
        if sy > 1e-12 * np.sqrt((s @ s) * (y @ y)):  # keep only pairs with positive curvature
            hist.append((s, y, 1.0 / sy))
            if len(hist) > memory:
                hist.pop(0)
        x, f, g = xn, fn, gn
    return x, f, g, max_iter, 1


@timed_fit
def fit_mle(
    model,
    stats_flat,
    N,
    lam,
    *,
    theta0=None,
    inference=exact_marginals,
    tol=1e-6,
    max_iter=1000,
    method="lbfgs",
) -> Fit:
    """Maximise theta . s - N A(theta) - lam ||theta||^2 over flat theta
    (Eq. 3.2 plus the L2 penalty).

    stats_flat: sufficient statistics in the model's flat layout (``statistics(model, tables)``).
    N: population size; lam: penalty weight (not divided by N, as in the thesis).
    inference(model, theta) -> Marginals supplies A(theta) (``log_z``) and mu(theta) (``edge``).
    The optimiser minimises -f / N, whose gradient mu(theta) - s / N + 2 lam theta / N is a
    marginal-probability error; ``tol`` bounds its max-abs entry (default 1e-6: far below the
    sampling error ~1/sqrt(N) of a marginal at any N the study uses).
    method: "lbfgs" (:func:`_lbfgs`, the default, fast) or "scipy" (scipy L-BFGS-B with gtol = tol,
    a cross-check). Returns a :class:`Fit` whose ``objective`` holds the final f (unscaled); theta
    and objective are always finite (inference failures count as f = inf and are stepped back from).
    ``converged`` is False on the iteration cap or a failed line search before reaching ``tol``.
    """
    s = np.asarray(stats_flat, dtype=float) / N
    c = lam / N
    x0 = np.zeros(model.dim) if theta0 is None else np.array(theta0, dtype=float)

    def objective(theta):
        m = inference(model, theta)
        g = statistics(model, m.edge) - s + 2.0 * c * theta
        f = -(theta @ s - m.log_z - c * (theta @ theta))
        if not (np.isfinite(f) and np.all(np.isfinite(g))):
            return np.inf, np.zeros_like(theta)
        return f, g

    if method == "lbfgs":
        x, f, g, nit, status = _lbfgs(objective, x0, tol, max_iter)
    elif method == "scipy":
        res = minimize(
            objective,
            x0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15, "maxcor": 10},
        )
        x, f, g, nit, status = res.x, res.fun, res.jac, int(res.nit), int(res.status)
        status = 0 if status == 0 and np.max(np.abs(g)) <= tol else max(status, 1)
    else:
        raise ValueError(f"unknown method {method!r}")
    failed = not (np.isfinite(f) and np.all(np.isfinite(x)))  # theta0 failed: report, never NaN
    return Fit(
        theta=x0 if failed else x,
        iterations=int(nit),
        converged=bool(status == 0) and not failed,
        objective=np.array([np.finfo(float).min if failed else -N * f]),
        seconds=0.0,
    )


def naive_mle(model, y_tables, N, lam, *, project=True, **kw) -> Fit:
    """Naive MLE on noisy edge tables y (E, K, K) (Sections 3.2.2-3.2.3).

    The pseudo-marginals y_C / N of each edge table are projected onto the simplex when
    ``project`` (then the statistics are N times the projection), else used raw (negative entries
    and totals other than N allowed; the L2 penalty keeps the objective bounded).
    Keywords go to :func:`fit_mle`.
    """
    y = np.asarray(y_tables, dtype=float)
    if project:
        e, k = y.shape[0], y.shape[1]
        y = N * project_simplex(y.reshape(e, k * k) / N).reshape(y.shape)
    return fit_mle(model, statistics(model, y), N, lam, **kw)


def nonprivate_mle(model, n_tables, N, lam, **kw) -> Fit:
    """MLE on the true edge contingency tables n (E, K, K); keywords go to :func:`fit_mle`."""
    return fit_mle(model, statistics(model, np.asarray(n_tables, dtype=float)), N, lam, **kw)


def random_estimator(model, N, lam, rng, **kw) -> Fit:
    """The "random" reference: each edge table's marginal drawn from a flat Dirichlet(1) over its
    K*K cells independently, scaled by N and fitted by :func:`fit_mle` (keywords go there)."""
    e, k = len(model.edges), model.n_states
    mu = rng.dirichlet(np.ones(k * k), size=e).reshape(e, k, k)
    return fit_mle(model, statistics(model, N * mu), N, lam, **kw)
