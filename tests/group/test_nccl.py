"""The NCCL communicator's bookkeeping - buffers, offsets, pieces, send/receive pairs - run
against a stand-in for CuPy and its NCCL bindings that moves host memory: no GPU is needed,
and none of NCCL itself is tested (that needs a machine with several GPUs).

The stand-in records each member's calls between ``groupStart`` and ``groupEnd`` and carries
them out at ``groupEnd``: the i-th collective call of every member form one collective, and
sends meet receives in the order they were made, as NCCL requires.
"""

import contextlib
import ctypes
import sys
import types
from collections import defaultdict, deque

import numpy as np
import pytest
from grouphelp import GPU_GROUPS, PARTS, graph, group_of, matrix, vector

import graphblast as gb
import graphblast.backends.group as group_package
from graphblast import semiring
from graphblast.algorithms import bfs, connected_components, pagerank, triangle_count
from graphblast.backends.group import nccl as nccl_module
from graphblast.backends.group.comm import NumpyCommunicator

_TYPES = {1: np.int8, 2: np.uint8, 3: np.int32, 4: np.uint32, 5: np.int64, 6: np.uint64,
          7: np.float16, 8: np.float32, 9: np.float64}
_OPS = {0: np.add, 1: np.multiply, 2: np.maximum, 3: np.minimum}


class DeviceArray(np.ndarray):
    """A host array that answers ``.data.ptr`` as a CuPy array does."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0])


def _read(ptr, count, kind):
    dtype = np.dtype(_TYPES[kind])
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(raw, dtype=dtype).copy()


def _write(ptr, values, count, kind):
    values = np.ascontiguousarray(values, dtype=_TYPES[kind])
    assert values.shape == (count,), "a write past the buffer"
    ctypes.memmove(ptr, values.ctypes.data, values.nbytes)


class FakeNccl(types.SimpleNamespace):
    def __init__(self):
        super().__init__(available=True, NCCL_INT8=1, NCCL_UINT8=2, NCCL_INT32=3,
                         NCCL_UINT32=4, NCCL_INT64=5, NCCL_UINT64=6, NCCL_FLOAT16=7,
                         NCCL_FLOAT32=8, NCCL_FLOAT64=9, NCCL_SUM=0, NCCL_PROD=1,
                         NCCL_MAX=2, NCCL_MIN=3)
        self.calls = None
        fake = self

        class Comm:
            def __init__(self, rank):
                self.rank = rank

            def broadcast(self, send, recv, count, kind, root, stream):
                fake.calls["collective"][self.rank].append(("bcast", send, recv, count, kind,
                                                            root))

            def allReduce(self, send, recv, count, kind, op, stream):
                fake.calls["collective"][self.rank].append(("reduce", send, recv, count, kind,
                                                            op))

            def send(self, buf, count, kind, peer, stream):
                fake.calls["send"][(self.rank, peer)].append((buf, count, kind))

            def recv(self, buf, count, kind, peer, stream):
                fake.calls["recv"][(peer, self.rank)].append((buf, count, kind))

        self.NcclCommunicator = types.SimpleNamespace(
            initAll=lambda devices: [Comm(rank) for rank in range(len(devices))])

    def groupStart(self):
        assert self.calls is None, "groups do not nest"
        self.calls = {"collective": defaultdict(list), "send": defaultdict(deque),
                      "recv": defaultdict(deque)}

    def groupEnd(self):
        calls, self.calls = self.calls, None
        ranks = sorted(calls["collective"])
        for step in zip(*(calls["collective"][r] for r in ranks)):
            what, *_, count, kind, extra = step[0]
            if what == "bcast":
                source = _read(step[extra][1], count, kind)  # the root's send buffer
                for call in step:
                    _write(call[2], source, count, kind)
            else:
                total = _OPS[extra].reduce([_read(call[1], count, kind) for call in step])
                for call in step:
                    _write(call[2], total, count, kind)
        for pair, sends in calls["send"].items():
            recvs = calls["recv"][pair]
            assert len(sends) == len(recvs), "a send without its receive"
            for (src, count, kind), (dst, rcount, rkind) in zip(sends, recvs):
                assert (count, kind) == (rcount, rkind)
                _write(dst, _read(src, count, kind), count, kind)


@pytest.fixture
def fake_cupy(monkeypatch):
    nccl = FakeNccl()
    cuda = types.ModuleType("cupy.cuda")
    cuda.nccl = nccl
    cuda.Device = lambda device_id: contextlib.nullcontext()
    cuda.get_current_stream = lambda: types.SimpleNamespace(ptr=0)
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda
    cupy.empty = lambda shape, dtype: np.empty(shape, dtype=dtype).view(DeviceArray)
    cupy.ascontiguousarray = lambda a: np.ascontiguousarray(a).view(DeviceArray)
    cupy.asnumpy = lambda a: np.array(a).view(np.ndarray)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    return cupy


@pytest.mark.parametrize("piece", [nccl_module._PIECE, 3])
def test_collectives_match_numpy(fake_cupy, monkeypatch, rng, piece):
    """Every collective gives what the NumPy communicator gives, also when moves go in
    pieces."""
    monkeypatch.setattr(nccl_module, "_PIECE", piece)
    p = 3
    gpus = nccl_module.NcclCommunicator("cuda:0-2", [0, 1, 2])
    host = NumpyCommunicator("cpu:0-2", p)
    for dtype in [np.int64, np.float32, np.bool_, np.uint8]:
        parts = [rng.integers(0, 9, n).astype(dtype) for n in (4, 0, 7)]
        for got, want in zip(gpus.allgather(parts), host.allgather(parts)):
            np.testing.assert_array_equal(got, want)
        buckets = [[rng.integers(0, 9, rng.integers(0, 6)).astype(dtype) for _ in range(p)]
                   for _ in range(p)]
        for got_row, want_row in zip(gpus.alltoallv(buckets), host.alltoallv(buckets)):
            for got, want in zip(got_row, want_row):
                np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(gpus.gather_to_host(parts), host.gather_to_host(parts))
    for dtype in [np.int64, np.float64, np.bool_]:
        values = [rng.integers(0, 3, 2).astype(dtype) for _ in range(p)]
        for op in ["sum", "min", "max"] if dtype == np.bool_ else ["sum", "prod", "min", "max"]:
            for got, want in zip(gpus.allreduce(values, op), host.allreduce(values, op)):
                np.testing.assert_array_equal(got, want)
                assert got.dtype == want.dtype
    assert gpus.traffic() == host.traffic()


def test_group_backend_over_nccl(fake_cupy, monkeypatch, rng):
    """The partitioned primitives and the algorithms with the NCCL communicator (members on
    the CPU): the answers of one CPU."""
    from graphblast.backends.cpu import backend as cpu
    from graphblast.backends.group.backend import GroupBackend

    name = "cpu:10-12"
    backend = GroupBackend(name, [cpu] * 3, nccl_module.NcclCommunicator(name, [0, 1, 2]))
    real = group_package.group_backend
    monkeypatch.setattr(group_package, "group_backend",
                        lambda device: backend if device == name else real(device))
    A = graph(rng, 150, 500)
    G = A.to_device(name)
    assert G._data.group is backend
    for run in [lambda A: bfs(A, 2, parents=True)[1], pagerank, connected_components]:
        assert run(G).to_device("cpu").isclose(run(A), rel_tol=1e-9)
    assert triangle_count(G) == triangle_count(A)
    B = matrix(rng, 12, 9, 0.4, "FP64")
    u = vector(rng, 12, 0.5, "FP64")
    for direction in ("push", "pull"):
        with gb.config.set(direction=direction):
            got = u.to_device(name).vxm(B.to_device(name), semiring.plus_times).new()
        assert got.to_device("cpu").isclose(u.vxm(B).new())
    assert set(backend.comm.traffic()) >= {"vxm", "mxv", "gather_vector", "scatter_vector"}


def test_collectives_promote_map_and_refuse(fake_cupy):
    """Parts of different dtypes are gathered as NumPy concatenates them; boolean sums and
    products are logical (or, and); an array on another GPU than its member's is refused
    before any NCCL call."""
    gpus = nccl_module.NcclCommunicator("cuda:0-1", [0, 1])
    host = NumpyCommunicator("cpu:0-1", 2)
    parts = [np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int64)]
    for got, want in zip(gpus.allgather(parts), host.allgather(parts)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    flags = [np.array([True, True, False]), np.array([True, False, False])]
    for op in ["sum", "prod", "min", "max"]:
        for got, want in zip(gpus.allreduce(flags, op), host.allreduce(flags, op)):
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got, want)

    class Elsewhere(DeviceArray):
        @property
        def data(self):
            return types.SimpleNamespace(ptr=self.__array_interface__["data"][0], device_id=7)

    stray = np.arange(4).view(Elsewhere)
    with pytest.raises(ValueError, match="cuda:7"):
        gpus.allgather([np.arange(2), stray])
    with pytest.raises(ValueError, match="cuda:7"):
        gpus.alltoallv([[np.arange(1), np.arange(1)], [stray, np.arange(1)]])


@pytest.mark.skipif(not GPU_GROUPS, reason="real NCCL: GRAPHBLAST_GROUP_KIND=cuda on GPUs")
@pytest.mark.parametrize("piece", [None, 3])
def test_real_nccl_matches_numpy(monkeypatch, rng, piece):
    """The collectives on the GPUs of the largest group, NCCL itself, against NumPy: uneven
    and empty parts, every dtype the primitives move, moves in pieces."""
    import cupy as cp

    from graphblast.backends import get_backend

    if piece is not None:
        monkeypatch.setattr(nccl_module, "_PIECE", piece)
    name = group_of(max(PARTS))
    comm = get_backend(name).comm
    assert isinstance(comm, nccl_module.NcclCommunicator)
    p = comm.size
    host = NumpyCommunicator("cpu:0-1", p)

    def on(rank, array):
        with cp.cuda.Device(comm._devices[rank]):
            return cp.asarray(array)

    for dtype in [np.int64, np.int32, np.float64, np.float32, np.bool_, np.uint8]:
        parts = [rng.integers(0, 9, int(rng.integers(0, 12))).astype(dtype) for _ in range(p)]
        parts[p // 2] = parts[p // 2][:0]
        got = comm.allgather([on(r, x) for r, x in enumerate(parts)])
        for rank, (g, w) in enumerate(zip(got, host.allgather(parts))):
            assert g.device.id == comm._devices[rank]
            np.testing.assert_array_equal(cp.asnumpy(g), w)
        buckets = [[rng.integers(0, 9, int(rng.integers(0, 7))).astype(dtype) for _ in range(p)]
                   for _ in range(p)]
        got = comm.alltoallv([[on(s, b) for b in row] for s, row in enumerate(buckets)])
        for d, (g_row, w_row) in enumerate(zip(got, host.alltoallv(buckets))):
            for g, w in zip(g_row, w_row):
                assert g.device.id == comm._devices[d]
                np.testing.assert_array_equal(cp.asnumpy(g), w)
        np.testing.assert_array_equal(
            comm.gather_to_host([on(r, x) for r, x in enumerate(parts)]),
            host.gather_to_host(parts))
    for dtype in [np.int64, np.float64, np.bool_, np.int32]:
        values = [rng.integers(0, 3, 3).astype(dtype) for _ in range(p)]
        for op in ["sum", "prod", "min", "max"]:
            got = comm.allreduce([on(r, x) for r, x in enumerate(values)], op)
            for rank, (g, w) in enumerate(zip(got, host.allreduce(values, op))):
                assert g.dtype == w.dtype and g.device.id == comm._devices[rank]
                np.testing.assert_array_equal(cp.asnumpy(g), w)
    with pytest.raises(ValueError, match="not on its GPU"):
        comm.allgather([on((r + 1) % p, np.arange(3)) for r in range(p)])
