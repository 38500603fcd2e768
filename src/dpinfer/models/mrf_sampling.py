"""Exact simulation from pairwise MRFs (bernstein2020 ch. 3): population tables and individual
records.

Both samplers walk the calibrated junction tree of
:func:`dpinfer.models.mrf_inference.clique_marginals` from the root: the root clique's variables are
drawn from its marginal, then every child clique's new variables from their conditional given the
separator (the running intersection property makes them independent of everything drawn earlier
given the separator). This is exact forward sampling.

* :func:`sample_tables` never materialises records: the root clique's contingency table of N draws
  is Multinomial(N, P_root), and a child clique's table, given the counts of each separator
  configuration s, is Multinomial(count_s, P_child(. | s)) row by row. Edge tables are margins of
  clique tables. Cost does not grow with N (N = 1e7 is as cheap as N = 10).
* :func:`sample_records` draws (N, T) uint8 records with a numba kernel (inverse-CDF look-ups with
  an explicit ``np.random.Generator``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .mrf_inference import clique_marginals
from .pairwise_mrf import PairwiseMRF

__all__ = ["sample_tables", "sample_records", "conditional_tables"]


def conditional_tables(model: PairwiseMRF, theta: np.ndarray) -> list[tuple]:
    """Per clique (root first): (separator nodes, new nodes, (n_sep_configs, n_new_configs)
    conditional).

    Rows index separator configurations and columns the new nodes' configurations, both C order
    over the listed (sorted) nodes. A separator configuration of probability 0 gets a uniform row;
    it can never be drawn.
    """
    jt, probs, _ = clique_marginals(model, theta)
    return _conditionals(jt, probs, model.n_states)


def _conditionals(jt, probs: list, k: int) -> list[tuple]:
    out = []
    for cl, sep, p in zip(jt.cliques, jt.sep, probs):
        sep_axes = [a for a, v in enumerate(cl) if v in sep]
        new_axes = [a for a, v in enumerate(cl) if v not in sep]
        rows = p.transpose(sep_axes + new_axes).reshape(k ** len(sep_axes), -1)
        total = rows.sum(axis=1, keepdims=True)
        cond = np.divide(rows, total, out=np.full_like(rows, 1.0 / rows.shape[1]), where=total > 0)
        out.append((tuple(cl[a] for a in sep_axes), tuple(cl[a] for a in new_axes), cond))
    return out


def sample_tables(
    model: PairwiseMRF, theta: np.ndarray, n_records: int, rng: np.random.Generator
) -> np.ndarray:
    """(E, K, K) int64 edge contingency tables of ``n_records`` iid draws from p(x; theta), by
    nested multinomials.

    Each table sums to ``n_records``; tables of edges sharing nodes are mutually consistent, as if
    computed from one set of records.
    """
    k, n = model.n_states, int(n_records)
    jt, probs, _ = clique_marginals(model, theta)
    counts = []
    for c, (sep, new, cond) in enumerate(_conditionals(jt, probs, k)):
        cl = jt.cliques[c]
        if c == 0:
            sep_counts = np.array([n], dtype=np.int64)
        else:
            sep_counts = counts[jt.parent[c]].sum(axis=jt.down_axes[c]).ravel()
        draw = np.zeros(cond.shape, dtype=np.int64)
        live = sep_counts > 0
        if live.any():
            draw[live] = rng.multinomial(sep_counts[live], cond[live])
        # back from (separator, new) order to the clique's sorted axes
        order = list(sep) + list(new)
        table = draw.reshape((k,) * len(cl)).transpose([order.index(v) for v in cl])
        counts.append(table)
    tables = np.empty((model.n_edges, k, k), dtype=np.int64)
    for e, (c, reduce) in enumerate(jt.edge_clique):
        tables[e] = np.einsum(reduce, counts[c])
    return tables


@njit(cache=True)
def _forward_sample(
    out, sep_nodes, sep_ptr, new_nodes, new_ptr, cdf, cdf_ptr, n_cols, n_states, rng
):
    """Fill records ``out`` (N, T) uint8 by inverse-CDF forward sampling down the junction tree.

    Clique c reads its separator nodes sep_nodes[sep_ptr[c]:sep_ptr[c+1]] (C-order mixed radix K)
    to pick a row of its conditional CDF (row length n_cols[c], stored from cdf_ptr[c]), draws a
    column by binary search on one uniform and decodes it into its new nodes' states.
    """
    n_rec = out.shape[0]
    n_cl = n_cols.shape[0]
    for r in range(n_rec):
        for c in range(n_cl):
            row = 0
            for a in range(sep_ptr[c], sep_ptr[c + 1]):
                row = row * n_states + out[r, sep_nodes[a]]
            m = n_cols[c]
            base = cdf_ptr[c] + row * m
            u = rng.random()
            lo, hi = 0, m
            while lo < hi:
                mid = (lo + hi) // 2
                if cdf[base + mid] > u:
                    hi = mid
                else:
                    lo = mid + 1
            if lo >= m:
                lo = m - 1
            for a in range(new_ptr[c + 1] - 1, new_ptr[c] - 1, -1):
                out[r, new_nodes[a]] = lo % n_states
                lo //= n_states


def sample_records(
    model: PairwiseMRF, theta: np.ndarray, n_records: int, rng: np.random.Generator
) -> np.ndarray:
    """(N, T) uint8 iid records from p(x; theta) by exact forward sampling on the junction tree."""
    parts = conditional_tables(model, theta)
    sep_nodes = np.array([v for s, _, _ in parts for v in s], dtype=np.int64)
    new_nodes = np.array([v for _, w, _ in parts for v in w], dtype=np.int64)
    sep_ptr = np.cumsum([0] + [len(s) for s, _, _ in parts]).astype(np.int64)
    new_ptr = np.cumsum([0] + [len(w) for _, w, _ in parts]).astype(np.int64)
    cdfs = []
    for _, _, cond in parts:
        cum = np.cumsum(cond, axis=1)
        cdfs.append(
            (cum / cum[:, -1:]).ravel()
        )  # last entry exactly 1, so a uniform in [0,1) always lands
    cdf_ptr = np.cumsum([0] + [len(c) for c in cdfs]).astype(np.int64)
    n_cols = np.array([cond.shape[1] for _, _, cond in parts], dtype=np.int64)
    out = np.zeros((int(n_records), model.n_nodes), dtype=np.uint8)
    _forward_sample(
        out,
        sep_nodes,
        sep_ptr,
        new_nodes,
        new_ptr,
        np.concatenate(cdfs),
        cdf_ptr,
        n_cols,
        model.n_states,
        rng,
    )
    return out
