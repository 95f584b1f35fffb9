"""The communicator of a group of GPUs: NCCL through CuPy's bindings, one process driving
every GPU of the host.

``NcclCommunicator.initAll(devices)`` makes one NCCL communicator per GPU; each collective
issues one call per GPU between ``groupStart()`` and ``groupEnd()``, with that GPU made
current and on its current CuPy stream, so that the calls progress together (one thread
driving several GPUs must group them: a lone call would wait for peers whose calls were never
launched) and later work on each GPU's stream waits for them.  Work a member queued earlier
on its own stream (the arrays it sends) is ordered before the call by that stream; no
member waits for another outside NCCL.

Everything that can fail (buffers, types, devices) is prepared before ``groupStart()``: an
error between start and end would launch half a collective, which then never completes.

The host knows every array's length (one process holds them all), so no counts are exchanged
before an alltoallv.  Moves that compute nothing (allgather, alltoallv) send raw bytes as
unsigned words of the largest size (8, 4, 2 or 1 bytes) dividing the item size; allreduce
sends the values in their NCCL type (booleans as bytes: sum is max, prod is min).  Counts go
in pieces of at most ``_PIECE`` words (CuPy's older bindings take C ints).

Not yet run: this needs a machine with several GPUs (docs/distributed.md, "Status").
"""

import numpy as np

from .comm import Communicator

# NCCL's counts are C ints in some CuPy versions: larger moves go in pieces of this many items.
_PIECE = 1 << 30

# The words raw moves are counted in, widest first.
_WORDS = (8, 4, 2, 1)


class NcclCommunicator(Communicator):
    """Collectives over the GPUs ``device_ids`` (member ``k`` is GPU ``device_ids[k]``)."""

    def __init__(self, name, device_ids):
        super().__init__(name, len(device_ids))
        import cupy
        from cupy.cuda import nccl

        if not getattr(nccl, "available", False):
            from ...exceptions import InvalidValue

            raise InvalidValue(f"The device group {name} needs NCCL, which this CuPy was built "
                               "without or cannot load; install CuPy with NCCL (pip install "
                               "nvidia-nccl-cu12, or the matching CUDA version) or put "
                               "libnccl.so.2 on LD_LIBRARY_PATH")
        self._cp = cupy
        self._nccl = nccl
        self._devices = [int(d) for d in device_ids]
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
        """The current stream of the current device (call it with the member's GPU made
        current: CuPy keeps a current stream per device)."""
        return self._cp.cuda.get_current_stream().ptr

    def _raw_type(self, dtype):
        """(NCCL type, words per item) for moving items of ``dtype`` as raw words."""
        size = np.dtype(dtype).itemsize
        word = next(w for w in _WORDS if size % w == 0)
        return self._raw[word], size // word

    def _common_dtype(self, arrays):
        """The one dtype of a collective's arrays; NumPy's promotion of them where they
        differ (the NumPy communicator's concatenation promotes the same way)."""
        dtypes = {np.dtype(a.dtype) for a in arrays}
        if len(dtypes) == 1:
            return dtypes.pop()
        return np.result_type(*dtypes)

    def _placed(self, rank, array, dtype):
        """``array`` as a contiguous array of ``dtype`` on member ``rank``'s GPU; an array
        on another GPU is a bug of the caller (NCCL would read or write the wrong memory)."""
        where = getattr(getattr(array, "data", None), "device_id", None)
        if where is not None and where != self._devices[rank]:
            raise ValueError(f"{self.name}: member {rank}'s array is on cuda:{where}, not on "
                             f"its GPU cuda:{self._devices[rank]}")
        with self._on(rank):
            out = self._cp.ascontiguousarray(array)
            return out if out.dtype == dtype else out.astype(dtype)

    def _allgather(self, parts):
        """Every part broadcast from its member to all (one ncclBroadcast per root, all in
        one group): parts may differ in length, which ncclAllGather does not allow."""
        cp = self._cp
        dtype = self._common_dtype(parts)
        kind, words = self._raw_type(dtype)
        counts = [int(part.shape[0]) for part in parts]
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        parts = [self._placed(rank, part, dtype) for rank, part in enumerate(parts)]
        out = []
        for rank in range(self.size):
            with self._on(rank):
                out.append(cp.empty(int(offsets[-1]), dtype=dtype))
        # every call's buffers, in the order every member issues them (root by root, piece
        # by piece): each communicator must see its collectives in the same order
        calls = []
        for root in range(self.size):
            base = int(offsets[root]) * words
            send_words = _words_of(parts[root], words)
            for lo, hi in _pieces(counts[root] * words):
                for rank in range(self.size):
                    recv = _words_of(out[rank], words)[base + lo:base + hi]
                    send = send_words[lo:hi] if rank == root else recv
                    calls.append((rank, send.data.ptr, recv.data.ptr, hi - lo, root))
        streams = self._streams()
        self._nccl.groupStart()
        try:
            for rank, send, recv, count, root in calls:
                with self._on(rank):
                    self._comms[rank].broadcast(send, recv, count, kind, root, streams[rank])
        finally:
            self._nccl.groupEnd()
        return out

    def _alltoallv(self, buckets):
        """ncclSend/ncclRecv pairs, all in one group; a member's bucket for itself is kept."""
        cp = self._cp
        received = [[None] * self.size for _ in range(self.size)]
        calls = []
        for src in range(self.size):
            for dst in range(self.size):
                bucket = buckets[src][dst]
                dtype = np.dtype(bucket.dtype)  # a pair's own: the receiver allocates it
                if src == dst:
                    received[dst][src] = self._placed(src, bucket, dtype)
                    continue
                with self._on(dst):
                    recv = received[dst][src] = cp.empty(int(bucket.shape[0]), dtype=dtype)
                if bucket.shape[0]:
                    kind, words = self._raw_type(dtype)
                    send = _words_of(self._placed(src, bucket, dtype), words)
                    got = _words_of(recv, words)
                    for lo, hi in _pieces(int(bucket.shape[0]) * words):
                        calls.append((src, "send", send[lo:hi], hi - lo, kind, dst))
                        calls.append((dst, "recv", got[lo:hi], hi - lo, kind, src))
        if not calls:
            return received
        streams = self._streams()
        self._nccl.groupStart()
        try:
            for rank, what, buf, count, kind, peer in calls:
                with self._on(rank):
                    getattr(self._comms[rank], what)(buf.data.ptr, count, kind, peer,
                                                     streams[rank])
        finally:
            self._nccl.groupEnd()
        return received

    def _allreduce(self, values, op):
        """ncclAllReduce on every GPU in one group (booleans travel as bytes: their sum is
        their max, their product their min, as NumPy's logical reductions give them)."""
        cp = self._cp
        dtype = np.dtype(values[0].dtype)
        wire = np.dtype(np.uint8) if dtype == np.bool_ else dtype
        if wire not in self._typed:
            raise TypeError(f"{self.name}: NCCL cannot reduce {dtype} values")
        if dtype == np.bool_:
            op = {"sum": "max", "prod": "min"}.get(op, op)
        sends, out = [], []
        for rank, value in enumerate(values):
            sends.append(self._placed(rank, value, wire))
            with self._on(rank):
                out.append(cp.empty(sends[rank].shape, dtype=wire))
        streams = self._streams()
        self._nccl.groupStart()
        try:
            for rank in range(self.size):
                with self._on(rank):
                    self._comms[rank].allReduce(sends[rank].data.ptr, out[rank].data.ptr,
                                                sends[rank].size, self._typed[wire],
                                                self._ops[op], streams[rank])
        finally:
            self._nccl.groupEnd()
        if wire != dtype:
            for rank in range(self.size):
                with self._on(rank):
                    out[rank] = out[rank].astype(dtype)
        return out

    def _gather_to_host(self, parts):
        # cupy.asnumpy copies on the array's own GPU, which it makes current for the copy
        return np.concatenate([self._cp.asnumpy(part) for part in parts])

    def _streams(self):
        """Each member's current stream, read with its GPU current."""
        out = []
        for rank in range(self.size):
            with self._on(rank):
                out.append(self._stream())
        return out


def _words_of(array, words):
    """A contiguous 1-D array as ``words`` raw words an item (a view, no copy): the moves
    count words of the size the NCCL type says."""
    if words == 1:
        return array
    flat = array.reshape(-1)
    return flat.view(_word_dtype(flat.dtype.itemsize // words)).reshape(-1)


def _word_dtype(size):
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]


def _pieces(count):
    """(lo, hi) item ranges of at most _PIECE items covering ``count`` items."""
    return [(lo, min(lo + _PIECE, count)) for lo in range(0, count, _PIECE)]
