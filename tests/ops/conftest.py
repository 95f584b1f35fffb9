"""Helpers the operator tests share.

The test modules of this folder import them as ``opsharness``: a conftest.py has no stable
module name of its own (pytest imports each folder's conftest as ``conftest``), and pytest
always imports this file before them.
"""

import sys

import numpy as np


def floats_to_compare(got, expected, what):
    """Check what must match exactly between a kernel's results and NumPy's - the type, every
    value of a non-float type, the NaN positions - and return the float values left to compare
    within a tolerance, ``(got, expected)`` without NaNs, or None when nothing is left.

    CuPy compiles with -ftz=true, so an FP32 result that is subnormal (as an intermediate or
    as the result) may come back as zero: such a zero counts as the expected value."""
    assert got.dtype == expected.dtype, what
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected, err_msg=what)
        return None
    if got.dtype == np.float32:
        subnormal = (expected != 0) & (np.abs(expected) < np.finfo(np.float32).tiny)
        expected = np.where(subnormal & (got == 0), got, expected)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg=what)
    ok = ~np.isnan(got)
    return got[ok], expected[ok]


sys.modules.setdefault("opsharness", sys.modules[__name__])
