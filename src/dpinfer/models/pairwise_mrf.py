"""Pairwise discrete Markov random fields of bernstein2020 chapter 3 (Eq. 3.1): structure and
parameters.

A model has T nodes with K states each and a set of edges (i, j), i < j; the cliques C of the thesis
are the edges, so the released sufficient statistics are one K x K contingency table per edge and
the L1 sensitivity is |C| = E (Prop. 2).

Parameter layout (one flat vector ``theta`` of length ``model.dim``):

* ``n_blocks`` edge blocks of K*K entries, block b at ``theta[b*K*K:(b+1)*K*K]``, read row-major
  as ``theta_b[x_i, x_j]``; edge e uses block ``ties[e]`` (untied by default, shared by every edge
  of a time-homogeneous chain);
* then K entries for each node of ``node_params`` (in that order), a free node potential phi(x_v).
  A node potential is folded into ONE incident edge, the first edge (lexicographic) containing the
  node, so inference only ever sees edge log-potentials.

Sufficient statistics are laid out like theta (:func:`statistics`), so the log-likelihood is
``theta . statistics(n) - N A(theta)`` (Eq. 3.2) and grad A(theta) = statistics(mu).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "PairwiseMRF",
    "chain",
    "erdos_renyi",
    "tied_chain",
    "dirichlet_theta",
    "edge_log_potentials",
    "statistics",
    "theta_dot",
    "tables_from_records",
    "is_connected",
]


@dataclass(frozen=True, eq=False)
class PairwiseMRF:
    """Structure of a pairwise MRF: nodes, states, edges, parameter tying and free node potentials.

    Equality and hashing go through :attr:`key`, so two models with the same structure share
    cached junction trees.
    """

    n_nodes: int
    n_states: int
    edges: np.ndarray  # (E, 2) int64, i < j, lexicographically sorted
    ties: np.ndarray = field(default=None)  # (E,) int64 parameter block of each edge
    node_params: tuple = ()  # nodes with a free node potential

    def __post_init__(self):
        edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        edges = np.sort(edges, axis=1)
        order = np.lexsort((edges[:, 1], edges[:, 0]))
        if self.ties is not None and not np.array_equal(order, np.arange(len(edges))):
            raise ValueError("give edges sorted lexicographically when ties are given")
        edges = edges[order]
        if len(edges) and (
            np.any(edges[:, 0] == edges[:, 1])
            or np.any(edges.min() < 0)
            or edges.max() >= self.n_nodes
        ):
            raise ValueError("edges must join two distinct nodes in range(n_nodes)")
        if len(np.unique(edges, axis=0)) != len(edges):
            raise ValueError("duplicate edges")
        ties = (
            np.arange(len(edges), dtype=np.int64)
            if self.ties is None
            else np.asarray(self.ties, np.int64)
        )
        if ties.shape != (len(edges),) or (
            len(ties) and (ties.min() < 0 or len(np.unique(ties)) != ties.max() + 1)
        ):
            raise ValueError("ties must be (E,) block ids covering 0..n_blocks-1")
        node_params = tuple(int(v) for v in self.node_params)
        for v in node_params:
            if not np.any(edges == v):
                raise ValueError(f"node {v} has a node potential but no edge to carry it")
        if not 2 <= self.n_states <= 255:
            raise ValueError("n_states must be in 2..255 (records are uint8)")
        edges.setflags(write=False)
        ties.setflags(write=False)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "ties", ties)
        object.__setattr__(self, "node_params", node_params)

    @property
    def n_edges(self) -> int:
        return len(self.edges)

    @property
    def n_blocks(self) -> int:
        return int(self.ties.max()) + 1 if len(self.ties) else 0

    @property
    def dim(self) -> int:
        return self.n_blocks * self.n_states**2 + len(self.node_params) * self.n_states

    @property
    def n_cliques(self) -> int:
        """|C| of the thesis: the number of released edge tables, the L1 sensitivity (Prop. 2)."""
        return self.n_edges

    @property
    def key(self) -> tuple:
        return (
            self.n_nodes,
            self.n_states,
            self.edges.tobytes(),
            self.ties.tobytes(),
            self.node_params,
        )

    def __eq__(self, other):
        return isinstance(other, PairwiseMRF) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def node_edge(self, v: int) -> tuple[int, int]:
        """(edge index, axis of v in that edge's table) of the first edge containing node v."""
        e = int(np.flatnonzero((self.edges == v).any(axis=1))[0])
        return e, int(self.edges[e, 1] == v)


def chain(n_nodes: int, n_states: int, order: int = 1) -> PairwiseMRF:
    """Chain of the given order: edge (i, j) iff 1 <= j - i <= order
    (order 3: the third-order chain)."""
    edges = [(i, j) for i in range(n_nodes) for j in range(i + 1, min(i + order, n_nodes - 1) + 1)]
    return PairwiseMRF(n_nodes, n_states, np.array(edges, dtype=np.int64))


def is_connected(n_nodes: int, edges: np.ndarray) -> bool:
    """Whether the undirected graph on range(n_nodes) with these edges is connected."""
    adj = [[] for _ in range(n_nodes)]
    for i, j in np.asarray(edges).reshape(-1, 2):
        adj[i].append(j)
        adj[j].append(i)
    seen, stack = {0}, [0]
    while stack:
        for u in adj[stack.pop()]:
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return len(seen) == n_nodes


def erdos_renyi(
    n_nodes: int, n_states: int, p: float, rng: np.random.Generator, max_tries: int = 10_000
) -> PairwiseMRF:
    """Connected Erdos-Renyi graph G(n_nodes, p): resample all edges until the graph is
    connected."""
    iu, ju = np.triu_indices(n_nodes, k=1)
    for _ in range(max_tries):
        keep = rng.random(len(iu)) < p
        edges = np.stack([iu[keep], ju[keep]], axis=1)
        if is_connected(n_nodes, edges):
            return PairwiseMRF(n_nodes, n_states, edges)
    raise RuntimeError(f"no connected G({n_nodes}, {p}) in {max_tries} draws")


def tied_chain(n_nodes: int, n_states: int) -> PairwiseMRF:
    """Time-homogeneous first-order chain (Fig 3.6): every edge shares block 0, node potential at
    node 0."""
    base = chain(n_nodes, n_states)
    return PairwiseMRF(n_nodes, n_states, base.edges, np.zeros(base.n_edges, dtype=np.int64), (0,))


def dirichlet_theta(model: PairwiseMRF, rng: np.random.Generator) -> np.ndarray:
    """Synthetic truth of Sec. 3.3.2: per block theta = log of a flat Dirichlet(1) over its K*K
    entries.

    Node parameters are 0. A Dirichlet(1) draw is a normalised vector of Exp(1) draws, which are
    positive, so the logs are finite.
    """
    k2 = model.n_states**2
    theta = np.zeros(model.dim)
    theta[: model.n_blocks * k2] = np.log(rng.dirichlet(np.ones(k2), size=model.n_blocks)).ravel()
    return theta


def _split(model: PairwiseMRF, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = model.n_states
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape[-1] != model.dim:
        raise ValueError(f"theta has length {theta.shape[-1]}, model.dim is {model.dim}")
    nb = model.n_blocks * k * k
    blocks = theta[..., :nb].reshape(theta.shape[:-1] + (model.n_blocks, k, k))
    nodes = theta[..., nb:].reshape(theta.shape[:-1] + (len(model.node_params), k))
    return blocks, nodes


def edge_log_potentials(model: PairwiseMRF, theta: np.ndarray) -> np.ndarray:
    """(E, K, K) log-potentials theta_e[x_i, x_j]: the edge's block plus any folded node
    potential."""
    blocks, nodes = _split(model, theta)
    lp = blocks[model.ties].copy()
    for a, v in enumerate(model.node_params):
        e, axis = model.node_edge(v)
        lp[e] += nodes[a][:, None] if axis == 0 else nodes[a][None, :]
    return lp


def statistics(
    model: PairwiseMRF, edge_tables: np.ndarray, node_tables: np.ndarray | None = None
) -> np.ndarray:
    """Sufficient statistics in theta's layout from (..., E, K, K) edge tables -> (..., dim).

    Tied edge tables are summed per block; a free node's statistic is the margin of the edge table
    its potential is folded into (or ``node_tables[..., v, :]`` when given). This is the adjoint of
    :func:`edge_log_potentials`, so ``statistics(model, mu)`` is grad A(theta) for marginals mu.
    """
    tables = np.asarray(edge_tables, dtype=np.float64)
    k, lead = model.n_states, tables.shape[:-3]
    blocks = np.zeros(lead + (model.n_blocks, k, k))
    if model.n_blocks == model.n_edges and np.array_equal(model.ties, np.arange(model.n_edges)):
        blocks = tables.copy()
    else:
        for e, b in enumerate(model.ties):
            blocks[..., b, :, :] += tables[..., e, :, :]
    parts = [blocks.reshape(lead + (-1,))]
    for v in model.node_params:
        if node_tables is not None:
            parts.append(np.asarray(node_tables, dtype=np.float64)[..., v, :])
        else:
            e, axis = model.node_edge(v)
            parts.append(tables[..., e, :, :].sum(axis=-1 if axis == 0 else -2))
    return np.concatenate(parts, axis=-1)


def theta_dot(model: PairwiseMRF, theta: np.ndarray, edge_marginals: np.ndarray) -> float:
    """sum_C theta_C . mu_C = theta . statistics(model, mu): the linear term of Eq. 3.2."""
    return float(
        np.sum(edge_log_potentials(model, theta) * np.asarray(edge_marginals, dtype=np.float64))
    )


def tables_from_records(
    model: PairwiseMRF, records: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """(E, K, K) contingency tables n_C(i_C) of (N, T) integer records (Sec. 3.2).

    Without weights the tables are int64 counts; with per-record ``weights`` (N,) they are float
    sums of weights (e.g. the 1/K normalisation of the wifi study).
    """
    x = np.asarray(records)
    k, kk = model.n_states, model.n_states**2
    if x.ndim != 2 or x.shape[1] != model.n_nodes:
        raise ValueError(f"records must be (N, {model.n_nodes})")
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    out = np.zeros((model.n_edges, kk), dtype=np.int64 if w is None else np.float64)
    for e, (i, j) in enumerate(model.edges):
        code = x[:, i].astype(np.int64) * k + x[:, j]
        out[e] = np.bincount(code, weights=w, minlength=kk)[:kk]
    return out.reshape(model.n_edges, k, k)
