// Masked SpGEMM by dot products: C<M> = A (+.x) B computes only the entries of M, each as the
// sorted intersection of row i of A and column j of B (row j of B', given in CSR).  This is
// triangle counting's kernel: the work is bounded by the mask, not by the products of A and B.
#pragma once
#include "common.cuh"
#include "reduce.cuh"

// One thread per mask entry (i, j); walks the shorter of the two lists and finds each of its
// k in the longer one by a binary search that only moves forward (mkind: see gbk::mask_value).
// out[e]/flag[e] are the value and presence of C(i, j) for mask entry e.
template <class Mul, class M, class A, class B>
__global__ void gbk_mxm_dot(idx_t nm, const idx_t* m_indptr, idx_t nrows, const idx_t* m_idx,
                            const void* m_vals, int mkind, const idx_t* a_indptr,
                            const idx_t* a_idx,
                            const A* a_vals, const idx_t* bt_indptr, const idx_t* bt_idx,
                            const B* bt_vals, typename M::t* out, unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    for (idx_t e = gbk::global_id(); e < nm; e += gbk::grid_size()) {
        flag[e] = 0;
        if (!gbk::mask_value(m_vals, e, mkind)) continue;
        idx_t i = gbk::row_of(m_indptr, nrows, e);
        idx_t j = m_idx[e];
        idx_t pa = a_indptr[i], ea = a_indptr[i + 1];
        idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        if (pa == ea || pb == eb) continue;
        T acc = M::identity();
        bool have = false;
        bool a_short = (ea - pa) <= (eb - pb);
        idx_t ps = a_short ? pa : pb, es = a_short ? ea : eb;
        idx_t pl = a_short ? pb : pa, el = a_short ? eb : ea;
        const idx_t* s_idx = a_short ? a_idx : bt_idx;
        const idx_t* l_idx = a_short ? bt_idx : a_idx;
        for (; ps < es && pl < el; ++ps) {
            idx_t k = s_idx[ps];
            pl = gbk::lower_bound(l_idx, pl, el, k);
            if (pl == el) break;
            if (l_idx[pl] != k) continue;
            idx_t ia = a_short ? ps : pl, ib = a_short ? pl : ps;
            T z = mul(a_vals[ia], bt_vals[ib], i, k, k, j);
            acc = have ? M::combine(acc, z) : z;
            have = true;
            if (M::is_any || gbk::reached_terminal<M>(acc)) break;
        }
        if (have) {
            out[e] = acc;
            flag[e] = 1;
        }
    }
}
