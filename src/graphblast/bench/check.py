"""Every answer is checked against the others before its time counts.

Each participant's answer is first brought to one canonical form (NumPy, outside the timed
region):

=============  ==========================================  ====================================
algorithm      canonical answer                            two answers agree when
=============  ==========================================  ====================================
``bfs``        int64 level per vertex, -1 if unreached     the arrays are equal
``sssp``       float64 distance per vertex, inf if not     same reached set, distances within
               reached                                     a relative 1e-9 (integer weights:
                                                           sums are exact in float64)
``pagerank``   float64 rank per vertex                     L1 distance at most 1e-4 (the runs
                                                           stop at an L1 change of 1e-6, so
                                                           each is within ~6e-6 of the limit)
``cc``         int64: the smallest vertex id of the        the arrays are equal (same
               vertex's component                          partition, whatever the labels)
``tc``         int triangle count                          equal
=============  ==========================================  ====================================

:func:`judge` groups the answers into classes that agree, in the order of
:data:`REFERENCE_ORDER` (SciPy, the oracles named in BENCHMARKS.md, first; graphblast last).
The largest class is right, a tie going to the class that holds the earliest participant in
that order.  Everyone in it is ``ok``; everyone else ``mismatch`` (the detail says how it
differs); a single answer with nothing to compare against is ``unchecked``.
"""

import dataclasses

import numpy as np

__all__ = [
    "ALGORITHMS",
    "PAGERANK_L1_TOLERANCE",
    "REFERENCE_ORDER",
    "SSSP_RTOL",
    "Verdict",
    "canonical_labels",
    "compare",
    "dense",
    "fingerprint",
    "judge",
    "matches_fingerprint",
    "levels_from_tree",
]

ALGORITHMS = ("bfs", "sssp", "pagerank", "cc", "tc")
PAGERANK_L1_TOLERANCE = 1e-4
SSSP_RTOL = 1e-9

#: Whose answer is trusted first when answers disagree (BENCHMARKS.md's oracles lead).
REFERENCE_ORDER = {
    "bfs": ("scipy", "igraph", "networkit", "networkx", "suitesparse", "graphblast"),
    "sssp": ("scipy", "igraph", "networkx", "suitesparse", "graphblast"),
    "pagerank": ("networkx", "igraph", "scipy", "networkit", "suitesparse", "graphblast"),
    "cc": ("scipy", "igraph", "networkit", "networkx", "suitesparse", "graphblast"),
    "tc": ("networkx", "networkit", "suitesparse", "graphblast"),
}


@dataclasses.dataclass
class Verdict:
    """The check of one answer: ``status`` is ``ok``, ``mismatch`` or ``unchecked``."""

    status: str
    detail: str

    def to_dict(self):
        return {"status": self.status, "detail": self.detail}


def dense(indices, values, n, fill, dtype):
    """A length-``n`` array holding ``values`` at ``indices`` and ``fill`` elsewhere."""
    out = np.full(n, fill, dtype=dtype)
    out[np.asarray(indices, dtype=np.int64)] = values
    return out


def levels_from_tree(predecessors, source):
    """BFS levels from a BFS tree's predecessor array (SciPy's form), vectorized.

    ``predecessors[v]`` is ``v``'s parent, negative for the source and unreached vertices.
    Pointer jumping: every vertex keeps an ancestor and its distance to it, and jumps to
    its ancestor's ancestor each round, so ``log2(depth) + 1`` rounds suffice.

    Returns
    -------
    numpy.ndarray
        int64 level per vertex, -1 where unreached.
    """
    pred = np.asarray(predecessors, dtype=np.int64)
    n = pred.size
    ids = np.arange(n, dtype=np.int64)
    has_parent = pred >= 0
    anc = np.where(has_parent, pred, ids)
    dist = has_parent.astype(np.int64)
    while True:
        nxt = anc[anc]
        if np.array_equal(nxt, anc):
            break
        dist = dist + dist[anc]
        anc = nxt
    levels = np.where(anc == source, dist, -1)
    levels[source] = 0
    return levels


def canonical_labels(labels):
    """Relabel a partition so that each vertex carries its class's smallest vertex id."""
    labels = np.asarray(labels)
    if labels.size == 0:
        return labels.astype(np.int64)
    _, inverse = np.unique(labels, return_inverse=True)
    smallest = np.full(inverse.max() + 1, labels.size, dtype=np.int64)
    np.minimum.at(smallest, inverse, np.arange(labels.size, dtype=np.int64))
    return smallest[inverse]


def _first_difference(a, b):
    where = np.flatnonzero(a != b)
    i = int(where[0])
    return f"{where.size} of {a.size} vertices differ, first at {i}: {a[i]} vs {b[i]}"


def compare(algorithm, a, b):
    """Whether two canonical answers agree, and a short account of how they differ.

    Returns
    -------
    (bool, str)
    """
    if algorithm == "tc":
        return (a == b), ("" if a == b else f"{a} vs {b} triangles")
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False, f"{a.size} vs {b.size} vertices"
    if algorithm in ("bfs", "cc"):
        if np.array_equal(a, b):
            return True, ""
        what = "levels" if algorithm == "bfs" else "component labels"
        return False, f"{what}: {_first_difference(a, b)}"
    if algorithm == "sssp":
        ra, rb = np.isfinite(a), np.isfinite(b)
        if not np.array_equal(ra, rb):
            return False, f"reached sets differ: {_first_difference(ra, rb)}"
        if np.allclose(a[ra], b[rb], rtol=SSSP_RTOL, atol=0.0):
            return True, ""
        bad = ~np.isclose(a, b, rtol=SSSP_RTOL, atol=0.0) & ra
        i = int(np.flatnonzero(bad)[0])
        return False, f"{int(bad.sum())} distances differ, first at {i}: {a[i]} vs {b[i]}"
    if algorithm == "pagerank":
        l1 = float(np.abs(a - b).sum())
        ok = l1 <= PAGERANK_L1_TOLERANCE
        return ok, f"L1 distance {l1:.3g}" + ("" if ok else f" > {PAGERANK_L1_TOLERANCE:g}")
    raise ValueError(f"unknown algorithm {algorithm!r}")


def judge(algorithm, answers):
    """Check every answer against the others.

    Parameters
    ----------
    algorithm : str
    answers : dict
        Participant name to canonical answer.

    Returns
    -------
    dict
        Participant name to :class:`Verdict`.
    """
    order = REFERENCE_ORDER[algorithm]
    names = sorted(answers, key=lambda p: order.index(p) if p in order else len(order))
    if not names:
        return {}
    if len(names) == 1:
        return {names[0]: Verdict("unchecked", "no other answer to compare with")}
    classes = []          # [members], the first member is the class's representative
    for name in names:
        for members in classes:
            if compare(algorithm, answers[members[0]], answers[name])[0]:
                members.append(name)
                break
        else:
            classes.append([name])
    # max() keeps the first of equal sizes: classes were formed in trust order.
    winner = max(classes, key=len)
    ref = winner[0]
    verdicts = {}
    for name in names:
        if name in winner:
            others = [m for m in winner if m != name]
            if not others:
                detail = "taken as the reference: no other answer agrees with it"
            else:
                detail = f"agrees with {', '.join(others)}"
                if algorithm == "pagerank" and name != ref:
                    detail += f" ({compare(algorithm, answers[ref], answers[name])[1]} from {ref})"
            verdicts[name] = Verdict("ok", detail)
        else:
            verdicts[name] = Verdict("mismatch",
                                     f"differs from {ref}: "
                                     f"{compare(algorithm, answers[ref], answers[name])[1]}")
    return verdicts


#: Vertices whose PageRank a fingerprint keeps (a seeded sample; all of them on small graphs).
FINGERPRINT_SAMPLE = 2048


def fingerprint(algorithm, answer):
    """A small record of a canonical answer that a later answer can be checked against
    without the peers that agreed on it (``--refresh``): a SHA-256 of the exact answers
    (levels, labels, distances: integer weights make sums exact), the count of triangles,
    and for PageRank the ranks of a seeded sample of vertices."""
    import hashlib

    if algorithm == "tc":
        return {"count": int(answer)}
    a = np.ascontiguousarray(answer)
    if algorithm == "pagerank":
        at = _sample(a.size)
        return {"n": int(a.size), "sample": at.tolist(), "ranks": a[at].tolist()}
    return {"n": int(a.size), "dtype": str(a.dtype), "sha256": hashlib.sha256(a).hexdigest()}


def _sample(n):
    if n <= FINGERPRINT_SAMPLE:
        return np.arange(n)
    return np.sort(np.random.default_rng(n).choice(n, FINGERPRINT_SAMPLE, replace=False))


def matches_fingerprint(algorithm, fp, answer):
    """Whether ``answer`` agrees with a :func:`fingerprint` (as :func:`compare` would with
    the answer it was made from), and how it differs.  PageRank's L1 distance is estimated
    from the sample (scaled by n / sample size) against the same tolerance."""
    if algorithm == "tc":
        ok = int(answer) == fp["count"]
        return ok, "" if ok else f"{int(answer)} vs {fp['count']} triangles"
    a = np.ascontiguousarray(answer)
    if a.size != fp["n"]:
        return False, f"{a.size} vs {fp['n']} vertices"
    if algorithm == "pagerank":
        at = np.asarray(fp["sample"], dtype=np.int64)
        l1 = float(np.abs(a[at] - np.asarray(fp["ranks"])).sum()) * a.size / max(at.size, 1)
        ok = l1 <= PAGERANK_L1_TOLERANCE
        return ok, (f"L1 distance about {l1:.3g} (estimated from {at.size:,} vertices)"
                    + ("" if ok else f" > {PAGERANK_L1_TOLERANCE:g}"))
    import hashlib

    a = a.astype(fp["dtype"], copy=False)
    ok = hashlib.sha256(np.ascontiguousarray(a)).hexdigest() == fp["sha256"]
    return ok, "" if ok else "the answer differs (its SHA-256 does not match)"


def graphblas_answer(algorithm, raw, graph):
    """The comparable answer of a GraphBLAS-style result (python-graphblas or graphblast):
    a triangle count as an int, else the result Vector as a dense NumPy array (unreached: -1,
    inf or 0), component labels canonicalized."""
    if algorithm == "tc":
        return int(raw)
    idx, vals = raw.to_coo()
    if algorithm == "bfs":
        return dense(idx, vals, graph.n, -1, np.int64)
    if algorithm == "sssp":
        return dense(idx, vals, graph.n, np.inf, np.float64)
    if algorithm == "pagerank":
        return dense(idx, vals, graph.n, 0.0, np.float64)
    if algorithm == "cc":
        return canonical_labels(dense(idx, vals, graph.n, -1, np.int64))
    raise ValueError(f"no benchmark task {algorithm!r}")
