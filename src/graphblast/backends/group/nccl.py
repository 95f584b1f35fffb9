"""The communicator of a group of GPUs: NCCL through CuPy's bindings, one process driving
every GPU of the host.

``NcclCommunicator.initAll(devices)`` makes one NCCL communicator per GPU; each collective
issues one call per GPU between ``groupStart()`` and ``groupEnd()``, on that GPU's current
CuPy stream, so that the calls progress together and later work on the stream waits for them.
The host knows every array's length (one process holds them all), so no counts are exchanged
before an alltoallv.  Moves that compute nothing (allgather, alltoallv) send raw bytes as
unsigned words of the item size; allreduce sends the values in their NCCL type.

Not yet run: this needs a machine with several GPUs (docs/distributed.md, "Status").
"""

import numpy as np

from .comm import Communicator

# NCCL's counts are C ints in some CuPy versions: larger moves go in pieces of this many items.
_PIECE = 1 << 30


class NcclCommunicator(Communicator):
    """Collectives over the GPUs ``device_ids`` (member ``k`` is GPU ``device_ids[k]``)."""

    def __init__(self, name, device_ids):
        super().__init__(name, len(device_ids))
        import cupy
        from cupy.cuda import nccl

        if not getattr(nccl, "available", False):
            from ...exceptions import InvalidValue

            raise InvalidValue(f"The device group {name} needs NCCL, which this CuPy was built "
                               "without; install CuPy with NCCL (pip install "
                               "nvidia-nccl-cu12, or the matching CUDA version)")
        self._cp = cupy
        self._nccl = nccl
        self._devices = list(device_ids)
        self._comms = nccl.NcclCommunicator.initAll(self._devices)
        self._raw = {1: nccl.NCCL_UINT8, 2: nccl.NCCL_FLOAT16, 4: nccl.NCCL_UINT32,
                     8: nccl.NCCL_UINT64}
        self._typed = {np.dtype(np.int8): nccl.NCCL_INT8, np.dtype(np.uint8): nccl.NCCL_UINT8,
                       np.dtype(np.int32): nccl.NCCL_INT32,
                       np.dtype(np.uint32): nccl.NCCL_UINT32,
                       np.dtype(np.int64): nccl.NCCL_INT64,
                       np.dtype(np.uint64): nccl.NCCL_UINT64,
                       np.dtype(np.float16): nccl.NCCL_FLOAT16,
                       np.dtype(np.float32): nccl.NCCL_FLOAT32,
                       np.dtype(np.float64): nccl.NCCL_FLOAT64}
        self._ops = {"sum": nccl.NCCL_SUM, "prod": nccl.NCCL_PROD, "min": nccl.NCCL_MIN,
                     "max": nccl.NCCL_MAX}

    def _on(self, rank):
        return self._cp.cuda.Device(self._devices[rank])

    def _stream(self):
        return self._cp.cuda.get_current_stream().ptr

    def _raw_type(self, dtype):
        return self._raw[np.dtype(dtype).itemsize]

    def _allgather(self, parts):
        """Every part broadcast from its member to all (one ncclBroadcast per root, all in
        one group): parts may differ in length, which ncclAllGather does not allow."""
        cp = self._cp
        dtype = parts[0].dtype
        counts = [int(part.shape[0]) for part in parts]
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(int)
        parts = [self._contiguous(rank, part) for rank, part in enumerate(parts)]
        out = []
        for rank in range(self.size):
            with self._on(rank):
                out.append(cp.empty(int(offsets[-1]), dtype=dtype))
        kind = self._raw_type(dtype)
        self._nccl.groupStart()
        try:
            for root in range(self.size):
                for lo, hi in _pieces(counts[root]):
                    for rank in range(self.size):
                        with self._on(rank):
                            recv = out[rank][offsets[root] + lo:offsets[root] + hi]
                            send = parts[root][lo:hi] if rank == root else recv
                            self._comms[rank].broadcast(send.data.ptr, recv.data.ptr, hi - lo,
                                                        kind, root, self._stream())
        finally:
            self._nccl.groupEnd()
        return out

    def _alltoallv(self, buckets):
        """ncclSend/ncclRecv pairs, all in one group; a member's bucket for itself is kept."""
        cp = self._cp
        received = [[None] * self.size for _ in range(self.size)]
        pending = []
        for src in range(self.size):
            for dst in range(self.size):
                bucket = buckets[src][dst]
                if src == dst:
                    received[dst][src] = bucket
                    continue
                with self._on(dst):
                    received[dst][src] = cp.empty(bucket.shape[0], dtype=bucket.dtype)
                if bucket.shape[0]:
                    pending.append((src, dst, self._contiguous(src, bucket)))
        self._nccl.groupStart()
        try:
            for src, dst, bucket in pending:
                kind = self._raw_type(bucket.dtype)
                recv = received[dst][src]
                for lo, hi in _pieces(bucket.shape[0]):
                    with self._on(src):
                        self._comms[src].send(bucket[lo:hi].data.ptr, hi - lo, kind, dst,
                                              self._stream())
                    with self._on(dst):
                        self._comms[dst].recv(recv[lo:hi].data.ptr, hi - lo, kind, src,
                                              self._stream())
        finally:
            self._nccl.groupEnd()
        return received

    def _allreduce(self, values, op):
        """ncclAllReduce on every GPU in one group (booleans travel as bytes)."""
        cp = self._cp
        dtype = values[0].dtype
        wire = np.dtype(np.uint8) if dtype == np.bool_ else dtype
        if wire not in self._typed:
            raise TypeError(f"{self.name}: NCCL cannot reduce {dtype} values")
        sends, out = [], []
        for rank, value in enumerate(values):
            with self._on(rank):
                sends.append(cp.ascontiguousarray(value).astype(wire, copy=False))
                out.append(cp.empty(value.shape, dtype=wire))
        self._nccl.groupStart()
        try:
            for rank in range(self.size):
                with self._on(rank):
                    self._comms[rank].allReduce(sends[rank].data.ptr, out[rank].data.ptr,
                                                sends[rank].size, self._typed[wire],
                                                self._ops[op], self._stream())
        finally:
            self._nccl.groupEnd()
        if wire != dtype:
            for rank in range(self.size):
                with self._on(rank):
                    out[rank] = out[rank].astype(dtype)
        return out

    def _gather_to_host(self, parts):
        return np.concatenate([self._cp.asnumpy(part) for part in parts])

    def _contiguous(self, rank, array):
        with self._on(rank):
            return self._cp.ascontiguousarray(array)


def _pieces(count):
    """(lo, hi) item ranges of at most _PIECE items covering ``count`` items."""
    return [(lo, min(lo + _PIECE, count)) for lo in range(0, count, _PIECE)]
