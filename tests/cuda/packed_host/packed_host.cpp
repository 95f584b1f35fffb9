// kernels/mxm_packed.cuh run on the host (common.cuh here: one warp of std::threads) against
// plain loops: packing and unpacking, pull and push with their whole-warp rows and heavy
// rows' chunks, the masked count, the scalar assign under a packed mask.  Batches of 1, 63,
// 64, 65 and 130 rows; rows of B empty, short, walked by the warp and cut in chunks; masks
// complemented or not, absent, with bits past the batch's rows.  Prints the failures and
// "checked N cases"; exits 1 on a failure.
#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "mxm_packed.cuh"

typedef unsigned long long u64;

template <class F>
static void launch(F f) {  // one block of one warp
    gbk_warp warp;
    gbk_the_warp = &warp;
    std::vector<std::thread> lanes;
    for (unsigned t = 0; t < 32; ++t) lanes.emplace_back([&f, t] { threadIdx.x = t; f(); });
    for (auto& lane : lanes) lane.join();
}

static int failures = 0, cases = 0;
#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            if (++failures <= 20) {                       \
                std::printf(__VA_ARGS__);                 \
                std::printf("\n");                        \
            }                                             \
        }                                                 \
    } while (0)

struct Csr {
    idx_t n;
    std::vector<idx_t> ptr;
    std::vector<int> idx;
};

static Csr graph(std::mt19937_64& rng, idx_t n, idx_t heavy_len) {
    Csr A{n, {0}, {}};
    for (idx_t i = 0; i < n; ++i) {
        idx_t len = rng() % 5 == 0 ? 0 : rng() % 12;
        if (i % 17 == 3) len = 33 + rng() % 20;  // the whole warp's, or a few chunks
        if (i % 41 == 7) len = heavy_len;
        std::set<int> cols;
        if (rng() % 2) cols.insert(5);       // column 5: a heavy row of B' (chunks)
        if (rng() % 4 == 0) cols.insert(11);  // column 11: about 37 entries (the warp's)
        while ((idx_t)cols.size() < len) cols.insert((int)(rng() % n));
        A.idx.insert(A.idx.end(), cols.begin(), cols.end());
        A.ptr.push_back((idx_t)A.idx.size());
    }
    return A;
}

static Csr transpose(const Csr& A) {
    Csr T{A.n, std::vector<idx_t>(A.n + 1, 0), std::vector<int>(A.idx.size())};
    for (int j : A.idx) T.ptr[j + 1]++;
    for (idx_t j = 0; j < A.n; ++j) T.ptr[j + 1] += T.ptr[j];
    std::vector<idx_t> at(T.ptr.begin(), T.ptr.end() - 1);
    for (idx_t i = 0; i < A.n; ++i)
        for (idx_t e = A.ptr[i]; e < A.ptr[i + 1]; ++e) T.idx[at[A.idx[e]]++] = (int)i;
    return T;
}

static void chunks(const Csr& A, idx_t heavy_min, idx_t chunk, std::vector<idx_t>& rows,
                   std::vector<idx_t>& lo) {  // as bitmap._chunks
    for (idx_t i = 0; i < A.n; ++i)
        if (A.ptr[i + 1] - A.ptr[i] > heavy_min)
            for (idx_t e = A.ptr[i]; e < A.ptr[i + 1]; e += chunk) {
                rows.push_back(i);
                lo.push_back(e);
            }
}

static u64 valid(idx_t rows, idx_t g) {
    const idx_t left = rows - 64 * g;
    return left >= 64 ? ~0ull : (1ull << left) - 1;
}

static void product_case(std::mt19937_64& rng, idx_t ns, idx_t n, int mask_kind) {
    const idx_t W = (ns + 63) / 64, total = n * W, heavy_min = 40, chunk = 16;
    const Csr B = graph(rng, n, 90), BT = transpose(B);
    std::vector<u64> F(total), M(total);
    for (idx_t w = 0; w < total; ++w) {
        F[w] = rng() % 3 == 0 ? 0 : (rng() & rng()) & valid(ns, w % W);
        M[w] = rng() | rng();  // bits past the rows too: the kernels must ignore them
    }
    const int complement = mask_kind != 1;
    const u64* m = mask_kind == 2 ? nullptr : M.data();
    std::vector<u64> want(total, 0);
    u64 bits = 0, degs = 0;
    for (idx_t j = 0; j < n; ++j)
        for (idx_t g = 0; g < W; ++g) {
            u64 acc = 0;
            for (idx_t e = BT.ptr[j]; e < BT.ptr[j + 1]; ++e) acc |= F[BT.idx[e] * W + g];
            const u64 mw = m ? M[j * W + g] : 0;
            acc &= (complement ? ~mw : mw) & valid(ns, g);
            want[j * W + g] = acc;
            bits += __builtin_popcountll(acc);
            if (acc) degs += B.ptr[j + 1] - B.ptr[j];
        }
    for (int push = 0; push < 2; ++push) {
        ++cases;
        const Csr& X = push ? B : BT;
        std::vector<idx_t> crow, clo;
        chunks(X, heavy_min, chunk, crow, clo);
        const idx_t nch = (idx_t)crow.size();
        std::vector<u64> out(total, push ? 0ull : 0x5a5a5a5a5a5a5a5aull), counters(3, 0);
        if (push) {
            launch([&] { gbk_packed_push<int>(n, W, F.data(), B.ptr.data(), B.idx.data(),
                                              heavy_min, out.data()); });
            launch([&] { gbk_packed_push_chunks<int>(W, nch, crow.data(), clo.data(), chunk,
                                                     F.data(), B.ptr.data(), B.idx.data(),
                                                     out.data()); });
        } else {
            launch([&] { gbk_packed_pull<int>(ns, n, W, m, complement, F.data(), BT.ptr.data(),
                                              BT.idx.data(), heavy_min, out.data()); });
            launch([&] { gbk_packed_pull_chunks<int>(ns, W, nch, crow.data(), clo.data(), chunk,
                                                     m, complement, F.data(), BT.ptr.data(),
                                                     BT.idx.data(), out.data()); });
        }
        launch([&] { gbk_packed_finish(ns, n, W, m, complement, B.ptr.data(), out.data(),
                                       counters.data()); });
        for (idx_t w = 0; w < total; ++w)
            CHECK(out[w] == want[w], "%s ns=%lld mask=%d word %lld: %llx, want %llx",
                  push ? "push" : "pull", ns, mask_kind, w, out[w], want[w]);
        CHECK(counters[0] == bits && counters[1] == degs,
              "%s ns=%lld mask=%d: counted %llu bits, %llu degrees; want %llu, %llu",
              push ? "push" : "pull", ns, mask_kind, counters[0], counters[1], bits, degs);
    }
}

static void format_case(std::mt19937_64& rng, idx_t ns, idx_t n) {
    ++cases;
    const idx_t W = (ns + 63) / 64, total = n * W, positions = ns * n;
    std::vector<unsigned char> bytes(positions);
    std::vector<long long> vals(positions);
    for (idx_t p = 0; p < positions; ++p) {
        bytes[p] = rng() % 3 == 0;
        vals[p] = rng() % 4 == 0 ? 0 : (long long)(rng() % 100);
    }
    for (int mkind : {0, 8}) {  // structural; INT64 values, zeros among them
        std::vector<u64> words(total, 7), want(total, 0);
        for (idx_t p = 0; p < positions; ++p)
            if (bytes[p] && (mkind == 0 || vals[p] != 0))
                want[(p / ns) * W + (p % ns) / 64] |= 1ull << ((p % ns) % 64);
        launch([&] { gbk_packed_from_bitmap(ns, n, W, bytes.data(), mkind ? vals.data() : nullptr,
                                            mkind, words.data()); });
        CHECK(words == want, "from_bitmap ns=%lld mkind=%d", ns, mkind);
        // the same entries as CSR lists (row-major), values read by the mask's kind
        std::vector<idx_t> rows, cols;
        std::vector<long long> evals;
        for (idx_t i = 0; i < ns; ++i)
            for (idx_t j = 0; j < n; ++j)
                if (bytes[j * ns + i]) {
                    rows.push_back(i);
                    cols.push_back(j);
                    evals.push_back(vals[j * ns + i]);
                }
        std::vector<u64> listed(total, 0);
        launch([&] { gbk_packed_from_list((idx_t)rows.size(), rows.data(), cols.data(),
                                          mkind ? evals.data() : nullptr, mkind, W,
                                          listed.data()); });
        CHECK(listed == want, "from_list ns=%lld mkind=%d", ns, mkind);
        std::vector<unsigned char> back(positions, 9);
        launch([&] { gbk_packed_to_bitmap(ns, positions, W, want.data(), back.data()); });
        for (idx_t p = 0; p < positions; ++p)
            CHECK(back[p] == (unsigned char)((want[(p / ns) * W + (p % ns) / 64] >>
                                              ((p % ns) % 64)) & 1),
                  "to_bitmap ns=%lld position %lld", ns, p);
    }
    // C(M.S) = 7 into the byte bitmap `bytes`, its structure packed (c_words) kept with it
    std::vector<u64> M(total), c_words(total, 0);
    for (idx_t w = 0; w < total; ++w) M[w] = rng() % 2 ? 0 : (rng() & valid(ns, w % W));
    for (idx_t p = 0; p < positions; ++p)
        if (bytes[p]) c_words[(p / ns) * W + (p % ns) / 64] |= 1ull << ((p % ns) % 64);
    std::vector<unsigned char> c_bits = bytes;
    std::vector<long long> c_vals = vals;
    std::vector<u64> counters(3, 0), words_want(total);
    for (idx_t w = 0; w < total; ++w) words_want[w] = c_words[w] | M[w];
    launch([&] { gbk_packed_assign_scalar<long long>(ns, n, W, M.data(), c_bits.data(),
                                                     c_vals.data(), 7ll, c_words.data(),
                                                     counters.data()); });
    u64 fresh = 0;
    for (idx_t p = 0; p < positions; ++p) {
        const bool in = (M[(p / ns) * W + (p % ns) / 64] >> ((p % ns) % 64)) & 1;
        fresh += in && !bytes[p];
        CHECK(c_bits[p] == (unsigned char)(bytes[p] || in) &&
                  c_vals[p] == (in ? 7 : vals[p]),
              "assign ns=%lld position %lld", ns, p);
    }
    CHECK(counters[0] == fresh, "assign ns=%lld: counted %llu new, want %llu", ns, counters[0],
          fresh);
    CHECK(c_words == words_want, "assign ns=%lld: the packed structure", ns);
}

int main() {
    std::mt19937_64 rng(54);
    for (idx_t ns : {1, 63, 64, 65, 130}) {
        for (int mask_kind = 0; mask_kind < 3; ++mask_kind) product_case(rng, ns, 150, mask_kind);
        format_case(rng, ns, 37);
    }
    std::printf("checked %d cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
