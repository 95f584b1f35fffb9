"""The NumPy communicator, and what the partitioned primitives move and log."""

import logging

import numpy as np
import pytest
from grouphelp import matrix, reset_traffic, traffic, vector

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.backends.group.comm import NumpyCommunicator


def test_collectives():
    comm = NumpyCommunicator("cpu:0-2", 3)
    parts = [np.arange(2), np.arange(0), np.arange(5, 8)]
    gathered = comm.allgather(parts)
    assert len(gathered) == 3
    for g in gathered:
        np.testing.assert_array_equal(g, [0, 1, 5, 6, 7])
    buckets = [[np.full(s + d, 10 * s + d) for d in range(3)] for s in range(3)]
    received = comm.alltoallv(buckets)
    for d in range(3):
        for s in range(3):
            np.testing.assert_array_equal(received[d][s], buckets[s][d])
    for op, want in [("sum", [6, 3]), ("prod", [6, 0]), ("min", [1, 0]), ("max", [3, 2])]:
        out = comm.allreduce([np.array([1, 0]), np.array([2, 1]), np.array([3, 2])], op)
        for o in out:
            np.testing.assert_array_equal(o, want)
    np.testing.assert_array_equal(comm.gather_to_host(parts), [0, 1, 5, 6, 7])
    with comm.operation("mine"):
        comm.allgather(parts)
    counts = comm.traffic()
    # allgather: each non-empty part to the 2 others; alltoallv: the 6 off-diagonal buckets
    # (none empty); allreduce: every value to every other member; to the host: the non-empty
    # parts
    assert counts["mine"] == {"calls": 1, "messages": 4, "bytes": 2 * 5 * 8}
    other = counts["other"]
    assert other["calls"] == 1 + 1 + 4 + 1
    assert other["messages"] == 4 + 6 + 4 * 6 + 2
    comm.reset()
    assert comm.traffic() == {}


def test_collective_errors():
    comm = NumpyCommunicator("cpu:0-1", 2)
    with pytest.raises(ValueError, match="one item per member"):
        comm.allgather([np.arange(3)])
    with pytest.raises(ValueError, match="one item per member"):
        comm.alltoallv([[np.arange(1)], [np.arange(1)]])
    with pytest.raises(ValueError, match="allreduce takes one of"):
        comm.allreduce([np.arange(1), np.arange(1)], "lxor")


def test_pull_gathers_the_vector_once(rng):
    """A pull from a complete vector allgathers its values only (n values to each of the
    p - 1 others per part); an element-wise operation on aligned operands moves nothing."""
    device, p, n = "cpu:0-3", 4, 40
    A = matrix(rng, n, n, 0.3, "FP64").to_device(device)
    u = Vector.from_scalar(1.0, n, device=device)
    reset_traffic(device)
    with gb.config.set(direction="pull"):
        w = A.mxv(u, semiring.plus_times).new()
    w.ewise_mult(u).new()
    assert traffic(device) == {"mxv": {"calls": 1, "messages": p * (p - 1),
                                       "bytes": (p - 1) * n * 8}}


def test_push_routes_products(rng):
    """A push from one entry: an allreduce of the push work, then the products go to their
    owners in one alltoallv per array (indices and values)."""
    device = "cpu:0-3"
    A = matrix(rng, 40, 40, 0.3, "INT64").to_device(device)
    u = Vector.from_coo([3], [1], "INT64", size=40, device=device)
    reset_traffic(device)
    with gb.config.set(direction="push"):
        u.vxm(A, semiring.plus_times).new()
    moved = traffic(device)["vxm"]
    assert moved["calls"] == 3
    row = A.to_device("cpu")[3, :].new()
    owners = np.searchsorted(A._data.col_bounds, row.to_coo()[0], side="right") - 1
    owner_of_u = np.searchsorted(A._data.bounds, 3, side="right") - 1
    sent = int(np.sum(owners != owner_of_u))
    assert moved["bytes"] == 4 * 3 * 8 + sent * 2 * 8


def test_repartition_is_counted(rng):
    device = "cpu:0-2"
    A = matrix(rng, 20, 20, 0.5, "INT64").to_device(device)
    B = matrix(rng, 20, 20, 0.5, "INT64")
    B[19, :] = 1  # another split
    B = B.to_device(device)
    assert not np.array_equal(A._data.bounds, B._data.bounds)
    reset_traffic(device)
    A.ewise_add(B).new()
    assert traffic(device)["ewise_add"]["calls"] == 3  # rows, columns and values of B


def test_debug_log(rng, caplog):
    device = "cpu:0-1"
    A = matrix(rng, 10, 10, 0.4, "FP64").to_device(device)
    v = vector(rng, 10, 0.5, "FP64").to_device(device)
    with caplog.at_level(logging.DEBUG, logger="graphblast"):
        A.mxv(v).new()
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith(device)]
    assert any("mxv:" in line and "messages" in line and "bytes" in line for line in lines)
