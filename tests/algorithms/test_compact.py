"""Every algorithm gives the same answer on a compact graph (32-bit column indices, no value
array for a pattern: the default on GPUs) as on the wide one, for every generator's graphs,
weighted and not, directed and not."""

import pytest

import graphblast as gb
from graphblast import algorithms, generators

GRAPHS = {
    "kron": lambda d: generators.kron(11, device=d),
    "kron-weighted": lambda d: generators.kron(10, weighted=True, device=d),
    "urand-weighted": lambda d: generators.urand(10, weighted=True, device=d),
    "graph500": lambda d: generators.graph500(10, seed=3, device=d),
    "rgg": lambda d: generators.rgg(1500, seed=2, device=d),
    "grid-weighted": lambda d: generators.grid2d(30, 40, weights="random", seed=1, device=d),
    "erdos-renyi-directed": lambda d: generators.erdos_renyi(1200, m=6000, directed=True,
                                                             seed=4, device=d),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_algorithms_agree_on_compact_and_wide_graphs(device, name):
    with gb.config.set(compact_graphs="never"):
        wide = GRAPHS[name](device)
    with gb.config.set(compact_graphs="always"):
        A = GRAPHS[name](device)
    assert A._data.stored_indices.dtype.itemsize == 4
    assert A.isequal(wide, check_dtype=True)
    source = int(wide.reduce_rowwise(gb.monoid.plus[gb.dtypes.INT64]).new().to_coo()[0][0])
    assert algorithms.bfs(A, source).isequal(algorithms.bfs(wide, source))
    assert algorithms.connected_components(A).isequal(algorithms.connected_components(wide))
    assert algorithms.pagerank(A, tol=None, max_iter=8).isclose(
        algorithms.pagerank(wide, tol=None, max_iter=8))
    if A.dtype != gb.dtypes.BOOL:
        assert algorithms.sssp(A, source).isequal(algorithms.sssp(wide, source))
    if A.is_symmetric:
        assert algorithms.triangle_count(A) == algorithms.triangle_count(wide)
