/* graphblast's CPU masked product by sorted intersections, for the semirings whose value is
 * the number of matches (plus_pair, plus_oneb): C<M>(i, j) = |A(i, :) intersect B'(j, :)|.
 *
 * Triangle counting spends its time here (C<L> = L plus.pair L').  The NumPy path finds each
 * element of the shorter row in the longer one by a binary search over the keys of the whole
 * matrix, about 150 ns an element; a merge of the two sorted rows (or a galloping search when
 * one is much shorter) costs a few ns.  Optional: without a C compiler the NumPy path runs
 * (backends/cpu/mxm.py), with the same results.
 *
 *     count(a_indptr, a_indices, b_indptr, b_indices, m_rows, m_cols, out)
 *
 * All arrays int64 and C-contiguous; rows of A and of B' (b_*) sorted, without duplicates;
 * out[e] receives the size of the intersection of row m_rows[e] of A and row m_cols[e] of
 * B'.  The caller has checked the shapes and the index ranges; the GIL is released. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* Number of common values of the sorted arrays a[0..na) and b[0..nb), na <= nb. */
static int64_t common(const int64_t *a, int64_t na, const int64_t *b, int64_t nb) {
    int64_t count = 0;
    if (na == 0) return 0;
    if (na * 16 < nb) {
        /* galloping: each element of the short row searched in what is left of the long */
        int64_t lo = 0;
        for (int64_t i = 0; i < na && lo < nb; ++i) {
            int64_t key = a[i], step = 1, hi = lo;
            while (hi < nb && b[hi] < key) {
                lo = hi + 1;
                hi += step;
                step <<= 1;
            }
            if (hi > nb) hi = nb;
            while (lo < hi) {
                int64_t mid = lo + ((hi - lo) >> 1);
                if (b[mid] < key) lo = mid + 1; else hi = mid;
            }
            if (lo < nb && b[lo] == key) {
                ++count;
                ++lo;
            }
        }
        return count;
    }
    int64_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) ++i;
        else if (a[i] > b[j]) ++j;
        else {
            ++count;
            ++i;
            ++j;
        }
    }
    return count;
}

static int get(PyObject *obj, Py_buffer *view, int writable, const char *name) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                           (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (view->itemsize != 8 || view->ndim != 1) {
        PyErr_Format(PyExc_TypeError, "%s must be a 1-D int64 array", name);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *count(PyObject *self, PyObject *args) {
    PyObject *objs[7];
    static const char *names[7] = {"a_indptr", "a_indices", "b_indptr", "b_indices",
                                   "m_rows", "m_cols", "out"};
    Py_buffer v[7];
    int got = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4],
                          &objs[5], &objs[6]))
        return NULL;
    for (; got < 7; ++got)
        if (get(objs[got], &v[got], got == 6, names[got]) < 0) break;
    if (got < 7) {
        for (int k = 0; k < got; ++k) PyBuffer_Release(&v[k]);
        return NULL;
    }
    const int64_t *ap = v[0].buf, *ai = v[1].buf, *bp = v[2].buf, *bi = v[3].buf;
    const int64_t *mr = v[4].buf, *mc = v[5].buf;
    int64_t *out = v[6].buf;
    Py_ssize_t n = v[4].len / 8;
    if (v[5].len / 8 != n || v[6].len / 8 != n) {
        for (int k = 0; k < 7; ++k) PyBuffer_Release(&v[k]);
        PyErr_SetString(PyExc_ValueError, "m_rows, m_cols and out must have the same length");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t e = 0; e < n; ++e) {
        const int64_t *a = ai + ap[mr[e]], *b = bi + bp[mc[e]];
        int64_t na = ap[mr[e] + 1] - ap[mr[e]], nb = bp[mc[e] + 1] - bp[mc[e]];
        out[e] = na <= nb ? common(a, na, b, nb) : common(b, nb, a, na);
    }
    Py_END_ALLOW_THREADS
    for (int k = 0; k < 7; ++k) PyBuffer_Release(&v[k]);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS,
     "count(a_indptr, a_indices, b_indptr, b_indices, m_rows, m_cols, out): out[e] = the "
     "number of common columns of row m_rows[e] of A and row m_cols[e] of B'."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_intersect", NULL, -1, methods};

PyMODINIT_FUNC PyInit__intersect(void) { return PyModule_Create(&module); }
