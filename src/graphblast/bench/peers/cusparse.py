"""cuSPARSE through CuPy (``cupyx.scipy.sparse``): the primitives' GPU baseline.

cuSPARSE has SpMV and SpGEMM for ``plus.times`` only, so it takes part in ``--primitives``
(SpMV, and SpGEMM followed by masking where graphblast runs a masked SpGEMM), not in the
algorithm tables.  CuPy is imported when the peer is loaded, never at module import, so the
benchmark runs on machines without it.
"""

from ._base import Peer, PeerUnavailable, package_version, synchronize_device

__all__ = ["CuSparse"]


class CuSparse(Peer):
    name = "cusparse"
    algorithms = frozenset()
    description = "cuSPARSE via CuPy (SpMV, SpGEMM; --primitives only)"

    def __init__(self, device="cuda:0"):
        self.device = str(device)
        self.cupy = None
        self.sparse = None

    def load(self):
        if not self.device.startswith("cuda"):
            raise PeerUnavailable("cuSPARSE is compared only in GPU runs (--device cuda); "
                                  f"this run's device is {self.device}")
        try:
            import cupy
            import cupyx.scipy.sparse as cusparse
        except ImportError:
            raise PeerUnavailable("CuPy is not installed (cuSPARSE is reached through "
                                  "cupyx.scipy.sparse; pip install cupy-cuda13x)") from None
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # noqa: BLE001 - any CUDA failure means "no GPU here"
            raise PeerUnavailable(f"CuPy found no usable GPU ({e})") from None
        if count == 0:
            raise PeerUnavailable("CuPy found no GPU")
        self.cupy = cupy
        self.sparse = cusparse
        cupy.cuda.Device(int(self.device.partition(":")[2] or 0)).use()

    def versions(self):
        return {"cupy": package_version("cupy-cuda13x", "cupy-cuda12x", "cupy"),
                "cuda_runtime": str(self.cupy.cuda.runtime.runtimeGetVersion())}

    def sync(self):
        synchronize_device(self.device)

    def csr(self, indptr, indices, values):
        """A cuSPARSE CSR matrix on the device from host arrays (int32 indices)."""
        cp = self.cupy
        n = len(indptr) - 1
        return self.sparse.csr_matrix(
            (cp.asarray(values), cp.asarray(indices, dtype=cp.int32),
             cp.asarray(indptr, dtype=cp.int32)), shape=(n, n))

    def spmv_task(self, A, x):
        """``y = A @ x`` (cuSPARSE SpMV)."""
        return lambda: A @ x

    def spgemm_then_mask_task(self, L, mask):
        """``C = (L @ L') .* mask``: the full SpGEMM, then the mask applied (cuSPARSE has
        no masked SpGEMM).

        ``L'`` is formed here, outside the timing, as graphblast's transpose is cached after
        the warm-up run.
        """
        LT = L.T.tocsr()
        return lambda: (L @ LT).multiply(mask)
