"""Marginal inference in pairwise MRFs (bernstein2020 ch. 3): junction tree, loopy BP,
enumeration, KL.

* :func:`exact_marginals` - sum-product on a junction tree in log space. The tree (elimination
  order, maximal cliques, separators, broadcasting shapes, which edge potential goes where) is built
  ONCE per model structure and cached; a call only runs the numeric passes. Messages are
  log-sum-exp reductions with a per-separator-configuration max, so potentials of any size (theta
  entries of -1000 or +50) give finite log-messages and no NaN.
* :func:`loopy_bp` - damped pairwise loopy BP in log space with the Bethe log Z (exact on trees).
* :func:`kl_divergence` - KL(p_true || p_hat) from marginals and log partition functions.

The elimination order minimises the total clique-table size sum_C K^|C| exactly (dynamic
programming over subsets of eliminated nodes) for T <= 12 nodes, else the better of greedy
min-fill and min-degree.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .pairwise_mrf import PairwiseMRF, edge_log_potentials, theta_dot

__all__ = [
    "Marginals",
    "JunctionTree",
    "junction_tree",
    "clique_marginals",
    "exact_marginals",
    "log_partition",
    "loopy_bp",
    "kl_divergence",
    "treewidth",
    "elimination_order",
    "scaled_pass",
]

_DP_MAX_NODES = 12
_TINY = 1e-250
# The max-scaled pass is exact only while no factor, table or message entry leaves the normal
# range of doubles (~1e-308): every one of them is at least exp(-sum of the edge tables' spans),
# so below this total span (in nats) nothing underflows and nothing loses precision as a subnormal.
_MAX_SPAN = 700.0


@dataclass(frozen=True)
class Marginals:
    """Edge marginals (E, K, K), node marginals (T, K) and log partition function A(theta)."""

    edge: np.ndarray
    node: np.ndarray
    log_z: float
    iterations: int = 0  # loopy BP sweeps (0 for exact methods)
    converged: bool = True  # loopy BP reached tol


@dataclass(frozen=True)
class JunctionTree:
    """Static junction-tree data of one model structure; cliques listed root first (BFS order)."""

    cliques: tuple  # sorted node tuples
    parent: tuple  # parent clique index (-1 for the root, index 0)
    sep: tuple  # separator node tuple with the parent
    up_axes: tuple  # axes of clique c summed out for its message to the parent
    down_axes: tuple  # axes of the PARENT summed out for the parent's message to c
    in_parent: tuple  # shape broadcasting a separator table into the parent's axes
    in_child: tuple  # shape broadcasting a separator table into the child's axes
    potentials: tuple  # per clique: tuple of (edge index, broadcast shape)
    edge_clique: tuple  # per edge: (clique index, einsum reducing the clique table to the edge)
    lonely: tuple  # per isolated node: (node, clique index)

    @property
    def width(self) -> int:
        return max(len(c) for c in self.cliques) - 1


def _reach(adj: list[int], eliminated: int, v: int) -> int:
    """Bitmask of nodes outside eliminated|{v} joined to v through eliminated nodes (Q(S, v))."""
    comp, grown = 1 << v, 0
    while comp != grown:  # on exit nb is the neighbourhood of the final component
        grown, nb, m = comp, 0, comp
        while m:
            nb |= adj[(m & -m).bit_length() - 1]
            m &= m - 1
        comp |= nb & eliminated
    return nb & ~(eliminated | (1 << v))


def _adjacency(n_nodes: int, edges) -> list[set]:
    adj_sets = [set() for _ in range(n_nodes)]
    for i, j in np.asarray(edges).reshape(-1, 2):
        adj_sets[i].add(int(j))
        adj_sets[j].add(int(i))
    return adj_sets


def _order_cost(adj_sets: list[set], order: list[int], k: int) -> tuple[int, list[frozenset]]:
    adj = [set(a) for a in adj_sets]
    cost, cliques = 0, []
    for v in order:
        nb = adj[v]
        cliques.append(frozenset(nb | {v}))
        cost += k ** (len(nb) + 1)
        for a in nb:
            adj[a] |= nb - {a}
            adj[a].discard(v)
        adj[v] = set()
    return cost, cliques


def _greedy(adj_sets: list[set], fill: bool) -> list[int]:
    adj = [set(a) for a in adj_sets]
    left, order = set(range(len(adj))), []
    while left:

        def score(v):
            nb = adj[v]
            fills = sum(1 for a, b in itertools.combinations(nb, 2) if b not in adj[a])
            return (fills, len(nb), v) if fill else (len(nb), fills, v)

        v = min(left, key=score)
        order.append(v)
        for a in adj[v]:
            adj[a] |= adj[v] - {a}
            adj[a].discard(v)
        left.discard(v)
        adj[v] = set()
    return order


def elimination_order(n_nodes: int, edges: np.ndarray, n_states: int) -> list[int]:
    """Elimination order minimising sum_C K^|C| (exact DP for small T, else the best greedy
    heuristic)."""
    adj_sets = _adjacency(n_nodes, edges)
    if n_nodes > _DP_MAX_NODES:
        orders = [_greedy(adj_sets, True), _greedy(adj_sets, False)]
        return min(orders, key=lambda o: _order_cost(adj_sets, o, n_states)[0])
    adj = [sum(1 << u for u in a) for a in adj_sets]
    best = [0] * (1 << n_nodes)
    pick = [0] * (1 << n_nodes)
    # subsets in increasing popcount-compatible order: every S \ {v} < S numerically
    for s in range(1, 1 << n_nodes):
        bestc, bestv, m = None, -1, s
        while m:
            v = (m & -m).bit_length() - 1
            m &= m - 1
            rest = s & ~(1 << v)
            c = best[rest] + n_states ** (1 + bin(_reach(adj, rest, v)).count("1"))
            if bestc is None or c < bestc:
                bestc, bestv = c, v
        best[s], pick[s] = bestc, bestv
    order, s = [], (1 << n_nodes) - 1
    while s:
        order.append(pick[s])
        s &= ~(1 << pick[s])
    return order[::-1]


def _build(model: PairwiseMRF) -> JunctionTree:
    n, k = model.n_nodes, model.n_states
    order = elimination_order(n, model.edges, k)
    _, elim = _order_cost(_adjacency(n, model.edges), order, k)
    maximal = [
        c
        for a, c in enumerate(elim)
        if not any(c < d or (c == d and b < a) for b, d in enumerate(elim))
    ]
    # maximum spanning tree on separator sizes (Prim from the largest clique)
    m = len(maximal)
    root = max(range(m), key=lambda a: (len(maximal[a]), -a))
    in_tree, parent_of, order_c = {root}, {root: -1}, [root]
    while len(in_tree) < m:
        a, b = max(
            ((a, b) for a in order_c for b in range(m) if b not in in_tree),
            key=lambda ab: (len(maximal[ab[0]] & maximal[ab[1]]), -ab[1], -ab[0]),
        )
        in_tree.add(b)
        parent_of[b] = a
        order_c.append(b)
    index = {c: t for t, c in enumerate(order_c)}
    cliques = tuple(tuple(sorted(maximal[c])) for c in order_c)
    parent = tuple(-1 if parent_of[c] < 0 else index[parent_of[c]] for c in order_c)
    seps, up_axes, down_axes, in_parent, in_child = [], [], [], [], []
    for t, cl in enumerate(cliques):
        pc = cliques[parent[t]] if parent[t] >= 0 else ()
        sep = tuple(sorted(set(cl) & set(pc)))
        seps.append(sep)
        up_axes.append(tuple(a for a, v in enumerate(cl) if v not in sep))
        down_axes.append(tuple(a for a, v in enumerate(pc) if v not in sep))
        in_parent.append(tuple(k if v in sep else 1 for v in pc))
        in_child.append(tuple(k if v in sep else 1 for v in cl))
    # each edge potential to one clique containing it (the smallest), and its marginal from there
    pots = [[] for _ in cliques]
    edge_clique = []
    for e, (i, j) in enumerate(model.edges):
        t = min(
            (t for t, cl in enumerate(cliques) if i in cl and j in cl),
            key=lambda t: (len(cliques[t]), t),
        )
        cl = cliques[t]
        pots[t].append((cl.index(j), cl.index(i), e, tuple(k if v in (i, j) else 1 for v in cl)))
        letters = "abcdefghijklmnopqrstuvwxyz"[: len(cl)]
        edge_clique.append((t, f"{letters}->{letters[cl.index(i)]}{letters[cl.index(j)]}"))
    deg = np.bincount(model.edges.ravel(), minlength=n)
    lonely = tuple(
        (v, next(t for t, cl in enumerate(cliques) if v in cl)) for v in range(n) if deg[v] == 0
    )
    return JunctionTree(
        cliques,
        parent,
        tuple(seps),
        tuple(up_axes),
        tuple(down_axes),
        tuple(in_parent),
        tuple(in_child),
        tuple(tuple(p[2:] for p in sorted(ps)) for ps in pots),
        tuple(edge_clique),
        lonely,
    )


@lru_cache(maxsize=512)
def junction_tree(model: PairwiseMRF) -> JunctionTree:
    """Cached junction tree of a model structure (keyed by n_nodes, n_states, edges, ties,
    node_params)."""
    return _build(model)


def treewidth(model: PairwiseMRF) -> int:
    """Width of the junction tree used by :func:`exact_marginals` (largest clique size - 1)."""
    return junction_tree(model).width


def _upward(jt: JunctionTree, lp: np.ndarray, k: int) -> tuple[list, list, float]:
    """Collect pass: log clique tables t_c (potential + children's messages), log messages,
    log Z."""
    t = []
    for cl, pots in zip(jt.cliques, jt.potentials):
        tab = np.zeros((k,) * len(cl))
        for e, shape in pots:
            tab += lp[e].reshape(shape)
        t.append(tab)
    up = [None] * len(t)
    for c in range(len(t) - 1, 0, -1):
        axes = jt.up_axes[c]
        mx = t[c].max(axis=axes, keepdims=True)
        msg = np.log(np.exp(t[c] - mx).sum(axis=axes, keepdims=True)) + mx
        up[c] = msg.reshape(jt.in_parent[c])
        t[jt.parent[c]] += up[c]
    mx = t[0].max()
    log_z = float(mx + np.log(np.exp(t[0] - mx).sum()))
    return t, up, log_z


def _log_pass(jt: JunctionTree, lp: np.ndarray, k: int) -> tuple[list, float]:
    """Calibration fully in log space: robust to any finite potentials, two exp per table entry."""
    t, up, log_z = _upward(jt, lp, k)
    probs = [np.exp(t[0] - log_z)]
    with np.errstate(divide="ignore"):
        for c in range(1, len(t)):
            # log of the parent's belief summed to the separator, divided by c's own message; a
            # separator configuration of probability < 1e-308 gives -inf, i.e. exact zeros below it
            s = probs[jt.parent[c]].sum(axis=jt.down_axes[c], keepdims=True)
            down = np.log(s) + log_z - up[c]
            probs.append(np.exp(t[c] + down.reshape(jt.in_child[c]) - log_z))
    return probs, log_z


def scaled_pass(
    jt: JunctionTree, lp: np.ndarray, k: int, downward: bool = True
) -> tuple[list, float] | None:
    """HUGIN calibration on max-scaled potentials with explicit log normalisers (one exp per
    edge entry).

    Every table and message is rescaled to max 1 and its log scale accumulated. Returns None (the
    caller then uses :func:`_log_pass`) when the edge tables' spans max - min add up to more than
    _MAX_SPAN nats, or a table's max falls below _TINY. Without the span guard, an edge with a span
    over ~708 nats underflows entries of its factor that messages later scale back up: on an
    overfitted naive-MLE fit (chain, T = 10, |X| = 10, spans up to 1056) A(theta) came out 2.2 nats
    low and the KL negative.
    """
    mx = lp.max(axis=(1, 2))
    if float((mx - lp.min(axis=(1, 2))).sum()) > _MAX_SPAN:
        return None
    factor = np.exp(lp - mx[:, None, None])
    log_norm = float(mx.sum())
    t = []
    for cl, pots in zip(jt.cliques, jt.potentials):
        tab = np.ones((1,) * len(cl))
        for e, shape in pots:  # sorted by last axis, so products stay small until the last axes
            tab = tab * factor[e].reshape(shape)
        tab = np.broadcast_to(tab, (k,) * len(cl))
        m = tab.max()
        if not m > _TINY:
            return None
        t.append(tab / m)
        log_norm += np.log(m)
    up = [None] * len(t)
    for c in range(len(t) - 1, 0, -1):
        msg = t[c].sum(axis=jt.up_axes[c], keepdims=True)
        m = msg.max()
        if not m > _TINY:
            return None
        up[c] = (msg / m).reshape(jt.in_parent[c])
        log_norm += np.log(m)
        t[jt.parent[c]] *= up[c]
    total = t[0].sum()
    if not total > _TINY:
        return None
    if not downward:
        return None, log_norm + float(np.log(total))
    probs = [t[0] / total]
    for c in range(1, len(t)):
        s = probs[jt.parent[c]].sum(axis=jt.down_axes[c], keepdims=True)
        # 0/0 only where c's message underflowed, and then the parent's belief is 0 there too
        ratio = np.divide(s, up[c], out=np.zeros_like(s), where=up[c] > 0)
        probs.append(t[c] * ratio.reshape(jt.in_child[c]))
    return probs, log_norm + float(np.log(total))


def clique_marginals(
    model: PairwiseMRF, theta: np.ndarray, *, log_domain: bool = False
) -> tuple[JunctionTree, list, float]:
    """Calibrated clique marginals of the cached junction tree: (tree, [P_c], log Z).

    Uses the max-scaled pass and falls back to the log-space pass when scaling underflows (or when
    ``log_domain``); both are exact.
    """
    jt, k = junction_tree(model), model.n_states
    lp = edge_log_potentials(model, theta)
    out = None if log_domain else scaled_pass(jt, lp, k)
    if out is not None and not all(np.isfinite(p.sum()) and p.sum() > 0 for p in out[0]):
        out = None  # a belief lost all its mass to underflow on the way down: redo in log space
    probs, log_z = _log_pass(jt, lp, k) if out is None else out
    return jt, [p / p.sum() for p in probs], log_z


def log_partition(model: PairwiseMRF, theta: np.ndarray) -> float:
    """A(theta) = log Z(theta) by the collect pass alone (cheaper than :func:`exact_marginals`)."""
    jt, lp = junction_tree(model), edge_log_potentials(model, theta)
    out = scaled_pass(jt, lp, model.n_states, downward=False)
    return _upward(jt, lp, model.n_states)[2] if out is None else out[1]


def _node_from_edges(model: PairwiseMRF, edge: np.ndarray) -> np.ndarray:
    node = np.zeros((model.n_nodes, model.n_states))
    for e in range(model.n_edges - 1, -1, -1):  # backwards: a node's first edge writes last
        i, j = model.edges[e]
        node[i], node[j] = edge[e].sum(axis=1), edge[e].sum(axis=0)
    return node


def exact_marginals(
    model: PairwiseMRF, theta: np.ndarray, *, log_domain: bool = False
) -> Marginals:
    """Exact edge and node marginals and A(theta) by junction-tree sum-product (exact to ~1e-12)."""
    jt, probs, log_z = clique_marginals(model, theta, log_domain=log_domain)
    k = model.n_states
    edge = np.empty((model.n_edges, k, k))
    for e, (c, reduce) in enumerate(jt.edge_clique):
        edge[e] = np.einsum(reduce, probs[c])
    node = _node_from_edges(model, edge)
    for v, c in jt.lonely:
        node[v] = probs[c].reshape(k)
    return Marginals(edge, node, log_z)


def _lse(x: np.ndarray, axis: int) -> np.ndarray:
    mx = np.expand_dims(x.max(axis=axis), axis)
    return np.log(np.exp(x - mx).sum(axis=axis)) + np.squeeze(mx, axis)


def loopy_bp(
    model: PairwiseMRF,
    theta: np.ndarray,
    *,
    damping: float = 0.5,
    tol: float = 1e-8,
    max_iter: int = 500,
) -> Marginals:
    """Damped synchronous loopy BP in log space; marginals are beliefs and log_z the Bethe log Z.

    Directed message d = 2e (i -> j) and 2e+1 (j -> i) of edge e = (i, j). Each sweep computes
    m'_d(x_dst) = logsumexp_x_src(theta_e + sum of messages into src except the reverse one),
    normalised, and sets m_d <- (1 - damping) m'_d + damping m_d (log domain). Stops when the
    largest change is below tol. On a tree the fixed point gives the exact marginals and A(theta)
    (Wainwright & Jordan 2008, Sec. 4.1).
    """
    k, n, ne = model.n_states, model.n_nodes, model.n_edges
    lp = edge_log_potentials(model, theta)
    pot = np.empty((2 * ne, k, k))  # pot[d, x_src, x_dst]
    pot[0::2], pot[1::2] = lp, lp.transpose(0, 2, 1)
    src = np.empty(2 * ne, dtype=np.int64)
    src[0::2], src[1::2] = model.edges[:, 0], model.edges[:, 1]
    dst = np.empty_like(src)
    dst[0::2], dst[1::2] = model.edges[:, 1], model.edges[:, 0]
    rev = np.arange(2 * ne) ^ 1
    into = np.zeros((n, 2 * ne))  # incidence: messages arriving at each node
    into[dst, np.arange(2 * ne)] = 1.0
    msg = np.full((2 * ne, k), -np.log(k))
    converged, it = ne == 0, 0
    for it in range(1, max_iter + 1):
        cavity = (into @ msg)[src] - msg[rev]
        new = _lse(pot + cavity[:, :, None], axis=1)
        new -= _lse(new, axis=1)[:, None]
        new = (1.0 - damping) * new + damping * msg
        delta = np.abs(new - msg).max() if ne else 0.0
        msg = new
        if delta < tol:
            converged = True
            break
    node_log = into @ msg
    node_log -= _lse(node_log, axis=1)[:, None]
    cavity = (into @ msg)[src] - msg[rev]
    # edge belief: potential plus the cavities of both ends (i's side is message 2e's cavity)
    eb = lp + cavity[0::2, :, None] + cavity[1::2, None, :]
    eb_log = eb - _lse(eb.reshape(ne, -1), axis=1)[:, None, None]
    edge, node = np.exp(eb_log), np.exp(node_log)
    deg = np.bincount(model.edges.ravel(), minlength=n)
    # Bethe: log Z = sum_e <b_e, theta_e> + sum_e H(b_e) - sum_i (d_i - 1) H(b_i)
    h_edge = -np.sum(edge * eb_log)
    h_node = -np.sum(node * node_log, axis=1)
    log_z = float(np.sum(edge * lp) + h_edge - np.sum((deg - 1) * h_node))
    return Marginals(edge, node, log_z, iterations=it, converged=bool(converged))


def kl_divergence(
    model: PairwiseMRF,
    theta_true: np.ndarray,
    theta_hat: np.ndarray,
    true_marginals: Marginals | None = None,
) -> float:
    """KL(p_true || p_hat) = theta_true.mu - A(theta_true) - (theta_hat.mu - A(theta_hat)),
    mu = true marginals.

    Both log partition functions come from the junction tree, never enumeration. Round-off below
    zero is clipped to 0 so the value can go on a log axis; anything further below zero is an error
    of the inference (it once hid an underflow), so it raises instead of reading as a perfect fit.
    """
    mu = exact_marginals(model, theta_true) if true_marginals is None else true_marginals
    terms = (
        theta_dot(model, theta_true, mu.edge),
        mu.log_z,
        theta_dot(model, theta_hat, mu.edge),
        log_partition(model, theta_hat),
    )
    kl = float(terms[0] - terms[1] - terms[2] + terms[3])
    if kl < -1e-9 * (1.0 + sum(abs(t) for t in terms)):
        raise FloatingPointError(
            f"negative KL divergence {kl:.3g}: the exact inference lost precision"
        )
    return max(kl, 0.0)
