"""The stand-in's CUB: the in-place scan CuPy's cumsum uses, done by NumPy."""

import numpy as _np

CUPY_CUB_CUMSUM = 0
CUPY_CUB_CUMPROD = 1


def device_scan(x, op):
    (_np.cumsum if op == CUPY_CUB_CUMSUM else _np.cumprod)(x, out=x)
    return x
