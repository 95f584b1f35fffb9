"""The real-graph folder the benchmark finds by itself: the package data, nothing beside the
repository (a fresh clone or an installed package has no ``shared/`` next to it)."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

from graphblast.bench import graphs
from graphblast.exceptions import InvalidValue


def test_default_is_the_package_data(monkeypatch):
    monkeypatch.delenv("GRAPHBLAST_DATA", raising=False)
    path = graphs.find_data_dir()
    import graphblast

    assert path == os.path.join(os.path.dirname(graphblast.__file__), "data")
    assert os.path.isfile(os.path.join(path, graphs.REAL["karate"][0]))
    assert os.path.isfile(os.path.join(path, "lagraph", "LICENSE"))


def test_environment_then_package_data(monkeypatch, tmp_path, data_dir):
    monkeypatch.setenv("GRAPHBLAST_DATA", data_dir)
    assert graphs.find_data_dir() == os.path.abspath(data_dir)
    # a folder without karate is passed over, not an error
    monkeypatch.setenv("GRAPHBLAST_DATA", str(tmp_path))
    assert graphs.find_data_dir().endswith(os.path.join("graphblast", "data"))


def test_explicit_folder_must_hold_the_graphs(tmp_path, data_dir):
    assert graphs.find_data_dir(data_dir) == os.path.abspath(data_dir)
    with pytest.raises(InvalidValue, match="tests/data"):
        graphs.find_data_dir(str(tmp_path))


def test_package_karate_is_the_test_copy(data_dir):
    """The package's karate is the same file as the tests' (one source, two places)."""
    ours = os.path.join(graphs.find_data_dir(), graphs.REAL["karate"][0])
    with open(ours, "rb") as a, open(os.path.join(data_dir, "lagraph", "karate.mtx"), "rb") as b:
        assert a.read() == b.read()


@pytest.mark.parametrize("name", sorted(graphs.REAL))
def test_real_graphs_are_flagged_symmetric(name, data_dir):
    """A real graph read by the benchmark is undirected (every edge both ways), so it is flagged
    as its own transpose, as generated graphs and symmetric Matrix Market files are: the
    algorithms then build no transposed copy."""
    spec = graphs.parse_graphs(name)[0]
    graph = graphs.build(spec, "cpu", data_dir=data_dir)
    A = graph.A
    assert A.is_symmetric
    indptr, indices, _ = A.to_csr()
    stored = sp.csr_array((np.ones(len(indices)), indices, indptr), shape=A.shape)
    assert stored.nnz > 0 and (stored != stored.T).nnz == 0  # the flag tells the truth
