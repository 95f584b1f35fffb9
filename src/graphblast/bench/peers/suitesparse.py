"""SuiteSparse:GraphBLAS through python-graphblas, with the algorithms written as LAGraph does.

This is the paper's main comparison, so each algorithm follows its LAGraph counterpart:

* BFS (``LG_BreadthFirstSearch_SSGrB``): push-pull with LAGraph's rule (alpha 8, beta1 8,
  beta2 512 on frontier and unexplored-edge counts).  Push is ``q<!v> = q any.pair A`` with
  ``q`` sparse, pull ``q<!v> = A' any.pair q`` with ``q`` bitmap: the sparsity control is what
  leads SuiteSparse's own mxv to its saxpy (push) or dot-product (pull) kernel.
* SSSP: Bellman-Ford over ``min.plus`` with only improved vertices active (the same rounds as
  ``graphblast.algorithms.sssp``; LAGraph's delta-stepping is a different algorithm).
* PageRank (``LAGr_PageRank``): the Graphalytics definition (sinks spread uniformly),
  ``r = teleport + A' plus.second (r ./ (d_out / damping))``, stopped when the L1 change is
  below the shared tolerance.
* Connected components: FastSV (``LG_CC_FastSV5``): min-grandparent hooking and shortcutting
  until the grandparents stop changing.  The stochastic hooking ``f[f[u]] min= mngp[u]``
  is a ``min.second`` product with the parent matrix, because ``GrB_assign`` with duplicate
  indices, as FastSV5 writes it, is undefined in the C API.
* Triangles (``LAGr_TriangleCount``, its default SandiaDot method with AutoSort):
  ``C<L> = L plus.pair U'`` (masked dot products), after sorting the vertices by ascending
  degree when the mean degree is above 4 times the median (on graphs with n > 1000 and
  mean degree >= 10).

LAGraph keeps the out-degree as a cached graph property (``G->out_degree``), computed once per
graph; here too it is built in :meth:`prepare`, outside the timing.  The graphs are
undirected, so ``A' = A`` as LAGraph uses it for undirected graphs.  SuiteSparse runs in its
non-blocking mode; every task ends with ``wait()`` so that no work is left pending when the
clock stops.  SuiteSparse uses all cores (``gb.ss.config["nthreads"]``).
"""

import os

import numpy as np

from ..check import graphblas_answer
from ._base import Peer, PeerUnavailable, package_version

__all__ = ["SuiteSparse"]


class SuiteSparse(Peer):
    name = "suitesparse"
    algorithms = frozenset({"bfs", "sssp", "pagerank", "cc", "tc"})
    description = ("SuiteSparse:GraphBLAS via python-graphblas, LAGraph's algorithms, "
                   "all cores")
    #: int64 indices of the pattern, and of the weighted copy with int64 weights
    host_bytes_per_edge = 24

    def __init__(self):
        self.grb = None

    def load(self):
        try:
            import graphblas
        except ImportError as e:
            raise PeerUnavailable(f"python-graphblas is not installed ({e}); pip install "
                                  "python-graphblas suitesparse-graphblas") from None
        self.grb = graphblas
        graphblas.ss.config["nthreads"] = os.cpu_count() or 1

    def versions(self):
        about = self.grb.ss.about
        return {
            "python-graphblas": package_version("python-graphblas"),
            "suitesparse-graphblas": package_version("suitesparse-graphblas"),
            "SuiteSparse:GraphBLAS": ".".join(str(x) for x in about["library_version"]),
        }

    def info(self):
        return {"nthreads": int(self.grb.ss.config["nthreads"]),
                "mode": self.grb.ss.about["mode"]}

    def prepare(self, graph, weighted):
        grb = self.grb
        n = graph.n
        if weighted:
            # INT64 weights match the min.plus INT64 semiring, so SuiteSparse runs its
            # built-in kernel instead of typecasting every entry.
            A = grb.Matrix.from_csr(graph.indptr, graph.indices,
                                    graph.weights.astype(np.int64), grb.dtypes.INT64,
                                    nrows=n, ncols=n)
        else:
            A = grb.Matrix.from_csr(graph.indptr, graph.indices, True, grb.dtypes.BOOL,
                                    nrows=n, ncols=n)
        deg = graph.degrees
        has = np.flatnonzero(deg)
        native = {
            "A": A,
            "degree": grb.Vector.from_dense(deg),
            "out_degree": grb.Vector.from_coo(has, deg[has].astype(np.float64), size=n),
            "sinks": grb.Vector.from_coo(np.flatnonzero(deg == 0), True, size=n),
            "degree_np": deg,
        }
        for obj in native.values():
            if hasattr(obj, "wait"):
                obj.wait()
        return native

    def task(self, algorithm, native, graph, params):
        fn = {"bfs": self._bfs, "sssp": self._sssp, "pagerank": self._pagerank,
              "cc": self._fastsv, "tc": self._triangles}[algorithm]
        return lambda: fn(native, graph, params)

    def answer(self, algorithm, raw, graph):
        return graphblas_answer(algorithm, raw, graph)

    # The algorithms -------------------------------------------------------------------

    def _bfs(self, native, graph, params):
        grb = self.grb
        A, degree = native["A"], native["degree"]
        n, src = graph.n, graph.source
        nvals = A.nvals
        itype = grb.dtypes.INT32 if n < 2**31 else grb.dtypes.INT64
        v = grb.Vector(itype, n)
        v.ss.config["sparsity_control"] = {"bitmap", "full"}
        v[src] = 0
        q = grb.Vector(grb.dtypes.BOOL, n)
        q[src] = True
        w = grb.Vector(grb.dtypes.INT64, n)
        any_pair = grb.semiring.any_pair[grb.dtypes.BOOL]
        alpha, beta1, beta2 = 8.0, 8.0, 512.0
        n_over_beta1, n_over_beta2 = int(n / beta1), int(n / beta2)
        push_pull, do_push, any_pull = True, True, False
        nq, last_nq, edges_unexplored = 1, 0, nvals
        nvisited, k = 1, 1
        while nvisited < n:
            if push_pull:
                if do_push:
                    growing = nq > last_nq
                    switch_to_pull = False
                    if edges_unexplored < n:
                        push_pull = False           # little of the graph is left
                    elif any_pull:
                        switch_to_pull = growing and nq > n_over_beta1
                    else:
                        w(q.S, replace=True) << degree
                        edges_in_frontier = w.reduce(grb.monoid.plus).new().value or 0
                        edges_unexplored -= edges_in_frontier
                        switch_to_pull = growing and edges_in_frontier > edges_unexplored / alpha
                    if switch_to_pull:
                        do_push = False
                elif nq < last_nq and nq <= n_over_beta2:     # shrinking and small
                    do_push = True
                any_pull = any_pull or not do_push
            q.ss.config["sparsity_control"] = "sparse" if do_push else "bitmap"
            if do_push:
                q(~v.S, replace=True) << q.vxm(A, any_pair)
            else:
                q(~v.S, replace=True) << A.mxv(q, any_pair)     # A' = A: undirected
            last_nq, nq = nq, q.nvals
            if nq == 0:
                break
            v(q.S) << k
            nvisited += nq
            k += 1
        v.wait()
        return v

    def _sssp(self, native, graph, params):
        grb = self.grb
        A, n = native["A"], graph.n
        INT64 = grb.dtypes.INT64
        min_plus = grb.semiring.min_plus[INT64]
        dist = grb.Vector(INT64, n)
        dist[graph.source] = 0
        frontier = dist.dup()
        for _ in range(n):
            t = frontier.vxm(A, min_plus).new()
            no_gain = t.ewise_mult(dist, grb.binary.ge).new()
            frontier(~no_gain.V, replace=True) << t
            if frontier.nvals == 0:
                break
            dist(frontier.S) << frontier
        dist.wait()
        return dist

    def _pagerank(self, native, graph, params):
        grb = self.grb
        FP64 = grb.dtypes.FP64
        A, out_degree, sinks = native["A"], native["out_degree"], native["sinks"]
        n, damping = graph.n, params.damping
        teleport = (1.0 - damping) / n
        scaled_degree = out_degree.apply(grb.binary.truediv, right=damping).new()
        plus_first = grb.semiring.plus_first[FP64]
        r = grb.Vector.from_scalar(1.0 / n, n, FP64)
        has_sinks = sinks.nvals > 0
        for _ in range(params.pagerank_max_iter):
            t = r
            boost = 0.0
            if has_sinks:
                boost = t.ewise_mult(sinks, grb.binary.first).new().reduce().new().value or 0.0
            w = t.ewise_mult(scaled_degree, grb.binary.truediv).new()
            r = grb.Vector.from_scalar(teleport + damping * boost / n, n, FP64)
            r(grb.binary.plus) << w.vxm(A, plus_first)
            diff = t.ewise_mult(r, grb.binary.minus).new().apply(grb.unary.abs).new()
            if diff.reduce().new().value < params.pagerank_tol:
                break
        r.wait()
        return r

    def _fastsv(self, native, graph, params):
        grb = self.grb
        INT64 = grb.dtypes.INT64
        A, n = native["A"], graph.n
        ids = np.arange(n, dtype=np.int64)
        min_second = grb.semiring.min_second[INT64]
        f = grb.Vector.from_dense(ids)
        gp = f.dup()
        mngp = f.dup()
        while True:
            mngp(grb.binary.min) << A.mxv(gp, min_second)
            _, parents = f.to_coo(indices=False)
            P = grb.Matrix.from_coo(ids, parents, True, nrows=n, ncols=n)
            f(grb.binary.min) << P.T.mxv(mngp, min_second)
            f(grb.binary.min) << mngp
            f(grb.binary.min) << gp
            _, parents = f.to_coo(indices=False)
            new_gp = f[parents].new()
            if new_gp.isequal(gp):
                break
            gp = new_gp
        f.wait()
        return f

    def _triangles(self, native, graph, params):
        grb = self.grb
        A, deg, n = native["A"], native["degree_np"], graph.n
        # AutoSort: only big, dense enough graphs whose mean degree dwarfs the median.
        if n > 1000 and A.nvals / n >= 10 and deg.mean() > 4 * np.median(deg):
            perm = np.argsort(deg, kind="stable")
            A = A[perm, perm].new()
        L = grb.select.tril(A, -1).new()
        U = grb.select.triu(A, 1).new()
        C = grb.Matrix(grb.dtypes.INT64, n, n)
        C(L.S) << L.mxm(U.T, grb.semiring.plus_pair[grb.dtypes.INT64])
        return C.reduce_scalar(grb.monoid.plus).new().value or 0
