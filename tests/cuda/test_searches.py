"""The sorted-array searches of the CUDA kernels (``gbk::lower_bound`` and ``gbk::gallop`` in
kernels/common.cuh, used by the masked dot product and the column select) compiled by nvcc as
host code and run on the CPU against ``std::lower_bound``: random sorted arrays of 32- and
64-bit indices with duplicates, every kind of sub-range (empty ones too), keys below, inside
and above the values.  Needs nvcc, not a GPU."""

import pathlib
import shutil
import subprocess

import pytest

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")

KERNELS = (pathlib.Path(__file__).parents[2] / "src" / "graphblast" / "backends" / "cuda"
           / "kernels")

PROGRAM = r"""
#include "common.cuh"
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

template <class I>
int check(std::mt19937_64& rng, int trials) {
    int bad = 0;
    for (int t = 0; t < trials; ++t) {
        int n = (int)(rng() % 300);
        std::vector<I> a(n);
        for (auto& x : a) x = (I)(rng() % (t % 2 ? 1000 : 40));  // many duplicates, or few
        std::sort(a.begin(), a.end());
        for (int q = 0; q < 50; ++q) {
            long long lo = (long long)(rng() % (n + 1));
            long long hi = lo + (long long)(rng() % (n - lo + 1));
            long long key = (long long)(rng() % 1100) - 50;
            long long want = std::lower_bound(a.data() + lo, a.data() + hi, key,
                                              [](I x, long long k) { return (long long)x < k; })
                             - a.data();
            if (gbk::gallop(a.data(), lo, hi, key) != want) ++bad;
            if (gbk::lower_bound(a.data(), lo, hi, key) != want) ++bad;
        }
    }
    return bad;
}

int main() {
    std::mt19937_64 rng(7);
    int bad = check<int>(rng, 2000) + check<long long>(rng, 2000);
    std::printf(bad ? "FAILED %d\n" : "ok\n", bad);
    return bad != 0;
}
"""


def test_searches_agree_with_std_lower_bound(tmp_path):
    source = tmp_path / "searches.cu"
    source.write_text(PROGRAM)
    binary = tmp_path / "searches"
    subprocess.run([NVCC, "-std=c++17", f"-I{KERNELS}", str(source), "-o", str(binary)],
                   check=True, capture_output=True, text=True, timeout=300)
    done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stdout + done.stderr
