/*
 * The fast path of graphblast's Matrix Market reader: the body of a coordinate or array file
 * parsed in one pass per byte, by several threads, with the grammar of the NumPy parser in
 * _text.py / _mmio.py (which stays the reference and writes every error message).
 *
 * Contract with _mmio.py: parse() either fills the output arrays with exactly what the NumPy
 * parser would give, or answers None ("rejected") and the caller re-parses with NumPy, which
 * raises the precise error (or, should this code ever refuse a valid file, reads it).  So this
 * file never needs to explain a problem, only to be sure: it accepts a strict subset of what
 * the reference accepts and converts it exactly.  Value tokens it cannot convert exactly by
 * itself (inf, nan, very long mantissas, huge exponents, float32 ties) are handed back as
 * "slow" tokens for the reference converter.
 *
 * Untrusted bytes are safe here: every read is bounds-checked against the buffer, nothing is
 * allocated from what the header declares (the caller sizes the outputs by min(declared
 * entries, lines present)), and no state survives a call.  parse() also says whether the
 * entries came in row- or column-major order, so that a sorted file needs no sort.
 *
 * format_lines() is the writer's counterpart: the body lines of mmwrite, byte for byte what
 * the NumPy writer gives.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <pthread.h>
#define HAVE_THREADS 1
#else
#define HAVE_THREADS 0
#endif

enum { V_NONE = 0, V_F64 = 1, V_F32 = 2, V_INT = 3, V_UINT = 4 };

/* What one call parses: the body bytes, the grammar and where entries go. */
typedef struct {
    const unsigned char *buf;
    int64_t n;           /* bytes in buf */
    int nindex;          /* index tokens per line: 2 (coordinate) or 0 (array) */
    int vkind;           /* V_*: the value token's grammar and conversion */
    int itemsize;        /* bytes per stored value (integer kinds) */
    int skew;            /* skew-symmetric: no most-negative integer value (its negation) */
    uint64_t nrows, ncols;
    int64_t lo;          /* V_INT: smallest value */
    uint64_t hi;         /* V_INT, V_UINT: largest value */
    int64_t *rows, *cols;
    unsigned char *vals;
} Spec;

/* One chunk of the body (whole lines), parsed by one thread into its own region. */
typedef struct {
    const Spec *spec;
    int64_t begin, end;          /* byte range */
    int64_t lines;               /* lines in the range: an upper bound on its entries */
    int64_t out_begin, out_end;  /* region of the output arrays */
    int64_t count;               /* entries written */
    int row_major, col_major;    /* entries strictly increasing in that order, so far */
    int rejected;                /* 1: the chunk is not something this code accepts */
    int64_t *slow;               /* (entry, token start, token end) triples */
    int64_t nslow, slow_cap;
} Chunk;

static int is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Bytes that may appear in a token of a real value (the reference's REAL_CHARS). */
static int is_real_char(unsigned char c) {
    if (c >= '0' && c <= '9') return 1;
    switch (c) {
    case '+': case '-': case '.': case 'e': case 'E':
    case 'i': case 'n': case 'f': case 'a': case 't': case 'y':
    case 'I': case 'N': case 'F': case 'A': case 'T': case 'Y':
        return 1;
    default:
        return 0;
    }
}

static int64_t count_newlines(const unsigned char *p, int64_t len) {
    int64_t count = 0;
    for (int64_t i = 0; i < len; i++) count += p[i] == '\n';
    return count;
}

/* Lines in [begin, end): newlines, plus a last line without one. */
static int64_t count_lines(const unsigned char *buf, int64_t begin, int64_t end) {
    if (end <= begin) return 0;
    return count_newlines(buf + begin, end - begin) + (buf[end - 1] != '\n');
}

static int add_slow(Chunk *c, int64_t entry, int64_t start, int64_t stop) {
    if (c->nslow == c->slow_cap) {
        int64_t cap = c->slow_cap ? 2 * c->slow_cap : 64;
        int64_t *grown = realloc(c->slow, (size_t)cap * 3 * sizeof(int64_t));
        if (!grown) return 0;
        c->slow = grown;
        c->slow_cap = cap;
    }
    c->slow[3 * c->nslow] = entry;
    c->slow[3 * c->nslow + 1] = start;
    c->slow[3 * c->nslow + 2] = stop;
    c->nslow++;
    return 1;
}

/* The unsigned decimal digits from p (at least one) as a value below 2**64: returns where
 * they stop, or NULL when there are none or the value does not fit. */
static const unsigned char *scan_digits(const unsigned char *p, const unsigned char *end,
                                        uint64_t *out) {
    const unsigned char *start = p;
    uint64_t v = 0;
    /* 19 digits stay below 10**19 < 2**64: no overflow check until then */
    const unsigned char *fast_end = end - p > 19 ? p + 19 : end;
    for (; p < fast_end; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9) break;
        v = v * 10 + d;
    }
    for (; p < end; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9) break;
        if (v > (UINT64_MAX - d) / 10) return NULL;
        v = v * 10 + d;
    }
    if (p == start) return NULL;
    *out = v;
    return p;
}

/* Whether p is where a token ends: the end of the chunk, a blank or a line end (any other
 * byte at or below ' ' is not allowed anywhere, and is rejected by what follows). */
static int at_token_end(const unsigned char *p, const unsigned char *end) {
    return p == end || *p <= ' ';
}

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if LDBL_MANT_DIG >= 64
/* 10**k, exact in a 64-bit significand (5**27 < 2**64). */
static const long double POW10L[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* Whether r lies exactly halfway between d = (double)r and a neighbour of d. */
static int halfway(long double r, double d) {
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
    /* x87 format: the 64-bit significand is the first 8 bytes.  A normal double keeps its
     * top 53 bits, so r is a halfway point exactly when the 11 bits below are 10000000000. */
    (void)d;
    uint64_t significand;
    memcpy(&significand, &r, 8);
    return (significand & 0x7FF) == 0x400;
#else
    long double here = d;
    long double up = nextafter(d, INFINITY), down = nextafter(d, -INFINITY);
    return r == (here + up) / 2 || r == (here + down) / 2;
#endif
}
#endif

/*
 * A real number [sign] digits [. digits] [e [sign] digits] starting at p, as the correctly
 * rounded double.  Returns where the number stops (the caller checks that its token ends
 * there), or NULL when it is left to the reference (another form, or a case this code cannot
 * decide exactly).
 *
 * M * 10**k with the significant digits M (at most 19) is one correctly rounded operation when
 * M <= 2**53 and |k| <= 22 (Clinger's fast path).  Otherwise, with a 64-bit significand long
 * double and |k| <= 27, M and 10**k are exact there and the product or quotient is rounded
 * once; rounding that to double again is right unless it lies exactly halfway between two
 * doubles, and those are left to the reference.
 */
static const unsigned char *parse_real(const unsigned char *p, const unsigned char *end,
                                       double *out) {
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    uint64_t m = 0;
    int sig = 0;          /* significant digits in m */
    int64_t k = 0;        /* decimal exponent of m */
    int digits = 0;       /* mantissa digits seen, zeros included */
    for (; p < end && (unsigned)(*p - '0') <= 9; p++, digits++) {
        if (sig < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            sig += m != 0;
        } else if (*p == '0') {
            k++;          /* an integer digit beyond the 19 kept: a factor of ten */
        } else {
            return NULL;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && (unsigned)(*p - '0') <= 9; p++, digits++) {
            if (sig < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                sig += m != 0;
                k--;
            } else if (*p != '0') {
                return NULL; /* trailing fraction zeros change nothing; other digits would */
            }
        }
    }
    if (digits == 0) return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exp_negative = 0;
        if (p < end && (*p == '+' || *p == '-')) exp_negative = *p++ == '-';
        uint64_t e;
        const unsigned char *stop = scan_digits(p, end, &e);
        if (!stop || stop - p > 5) return NULL;
        k += exp_negative ? -(int64_t)e : (int64_t)e;
        p = stop;
    }
    double d;
    if (m == 0) {
        d = 0.0;
    } else if (m <= (UINT64_C(1) << 53) && k >= -22 && k <= 22) {
        d = k >= 0 ? (double)m * POW10[k] : (double)m / POW10[-k];
    } else {
#if LDBL_MANT_DIG >= 64
        if (k < -27 || k > 27) return NULL;
        long double r = k >= 0 ? (long double)m * POW10L[k] : (long double)m / POW10L[-k];
        d = (double)r;
        if (halfway(r, d)) return NULL;
#else
        return NULL;
#endif
    }
    *out = negative ? -d : d;
    return p;
}

/* A double as float32 unless the double is a float32 halfway point (then the decimal text
 * decides, in the reference) or beyond the float32 range. */
static int to_float32(double d, float *out) {
    if (!(fabs(d) < (double)FLT_MAX)) return 0;
    float f = (float)d;
    if ((double)f != d) {
        float g = nextafterf(f, d > (double)f ? INFINITY : -INFINITY);
        if (d == ((double)f + (double)g) / 2) return 0;
    }
    *out = f;
    return 1;
}

static void store_integer(const Spec *s, int64_t at, int negative, uint64_t magnitude) {
    uint64_t bits = negative ? (uint64_t)0 - magnitude : magnitude; /* two's complement */
    unsigned char *dst = s->vals + at * s->itemsize;
    switch (s->itemsize) {
    case 1: { uint8_t v = (uint8_t)bits; memcpy(dst, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(dst, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &bits, 8); break;
    }
}

/* The end of the token starting at p (the next byte that is not part of it). */
static const unsigned char *token_end(const unsigned char *p, const unsigned char *end) {
    while (p < end && *p > ' ') p++;
    return p;
}

enum { REJECT = 0, OUT_OF_MEMORY = -1 };

/* The value token of entry ``at``, starting at p: stored, or recorded as slow.  Sets *stop to
 * the token's end; returns 1, REJECT or OUT_OF_MEMORY. */
static int parse_value(Chunk *c, int64_t at, const unsigned char *p, const unsigned char *end,
                       const unsigned char **stop) {
    const Spec *s = c->spec;
    if (s->vkind == V_F64 || s->vkind == V_F32) {
        double d = 0.0;
        float f = 0.0f;
        const unsigned char *q = parse_real(p, end, &d);
        int done = q && at_token_end(q, end);
        if (done && s->vkind == V_F32) done = to_float32(d, &f);
        if (!done) {
            /* inf, nan, long mantissas...: the reference converts them, or refuses them */
            q = token_end(p, end);
            for (const unsigned char *r = p; r < q; r++)
                if (!is_real_char(*r)) return REJECT;
            *stop = q;
            return add_slow(c, at, p - s->buf, q - s->buf) ? 1 : OUT_OF_MEMORY;
        }
        if (s->vkind == V_F64) memcpy(s->vals + at * 8, &d, 8);
        else memcpy(s->vals + at * 4, &f, 4);
        *stop = q;
        return 1;
    }
    int negative = 0;
    if (*p == '+' || *p == '-') negative = *p++ == '-';
    uint64_t magnitude;
    const unsigned char *q = scan_digits(p, end, &magnitude);
    if (!q || !at_token_end(q, end)) return REJECT;
    if (s->vkind == V_INT) {
        uint64_t limit = negative ? (uint64_t)0 - (uint64_t)s->lo : s->hi;
        if (magnitude > limit) return REJECT;
        if (s->skew && negative && magnitude == limit) return REJECT; /* -lo does not fit */
    } else if (magnitude > s->hi || (negative && magnitude != 0)) {
        return REJECT;
    }
    store_integer(s, at, negative, magnitude);
    *stop = q;
    return 1;
}

static void parse_chunk(Chunk *c) {
    const Spec *s = c->spec;
    const unsigned char *p = s->buf + c->begin, *end = s->buf + c->end;
    int64_t at = c->out_begin;
    uint64_t bound[2] = {s->nrows, s->ncols};
    int64_t *index_out[2] = {s->rows, s->cols};
    while (p < end) {
        if (*p == '%') { /* a comment line: '%' in the first column */
            const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl + 1 : end;
            continue;
        }
        while (p < end && is_blank(*p)) p++;
        if (p == end) break;
        if (*p == '\n') { p++; continue; } /* a blank line */
        if (at >= c->out_end) goto reject; /* more entries than the region (or file) holds */
        uint64_t index[2] = {0, 0};
        int ntokens = s->nindex + (s->vkind != V_NONE);
        for (int t = 0; t < ntokens; t++) {
            if (t > 0) { /* tokens are separated by blanks */
                if (p == end || !is_blank(*p)) goto reject;
                while (p < end && is_blank(*p)) p++;
            }
            if (p == end || *p <= ' ') goto reject; /* too few tokens, or a bad byte */
            const unsigned char *q;
            if (t < s->nindex) {
                q = scan_digits(p, end, &index[t]);
                if (!q || !at_token_end(q, end) || index[t] == 0 || index[t] > bound[t])
                    goto reject;
                index_out[t][at] = (int64_t)index[t] - 1;
            } else {
                int ok = parse_value(c, at, p, end, &q);
                if (ok == OUT_OF_MEMORY) { c->rejected = -1; return; }
                if (ok == REJECT) goto reject;
            }
            p = q;
        }
        if (s->nindex == 2 && at > c->out_begin) {
            /* the order of the entries, for a CSR built without sorting */
            uint64_t r0 = (uint64_t)s->rows[at - 1] + 1, c0 = (uint64_t)s->cols[at - 1] + 1;
            c->row_major &= index[0] > r0 || (index[0] == r0 && index[1] > c0);
            c->col_major &= index[1] > c0 || (index[1] == c0 && index[0] > r0);
        }
        while (p < end && is_blank(*p)) p++;
        if (p < end) {
            if (*p != '\n') goto reject; /* an extra token, or a byte outside the alphabet */
            p++;
        }
        at++;
    }
    c->count = at - c->out_begin;
    return;
reject:
    c->rejected = 1;
}

static void *parse_thread(void *arg) {
    parse_chunk((Chunk *)arg);
    return NULL;
}

static void *count_thread(void *arg) {
    Chunk *c = (Chunk *)arg;
    c->lines = count_lines(c->spec->buf, c->begin, c->end);
    return NULL;
}

/* Run fn on every chunk, in threads when there are several. */
static void run_all(Chunk *chunks, int nchunks, void *(*fn)(void *)) {
    if (nchunks == 0) return;
#if HAVE_THREADS
    pthread_t threads[64];
    int started[64] = {0};
    for (int i = 1; i < nchunks; i++)
        started[i] = pthread_create(&threads[i], NULL, fn, &chunks[i]) == 0;
    fn(&chunks[0]);
    for (int i = 1; i < nchunks; i++) {
        if (started[i]) pthread_join(threads[i], NULL);
        else fn(&chunks[i]);
    }
#else
    for (int i = 0; i < nchunks; i++) fn(&chunks[i]);
#endif
}

/* Split [begin, end) into at most ``want`` chunks of whole lines. */
static int split(const Spec *s, int64_t begin, int64_t end, int want, Chunk *chunks) {
    int n = 0;
    int64_t size = (end - begin) / want + 1;
    int64_t at = begin;
    while (at < end && n < want) {
        int64_t stop = n == want - 1 ? end : at + size;
        if (stop >= end) {
            stop = end;
        } else {
            const unsigned char *nl = memchr(s->buf + stop, '\n', (size_t)(end - stop));
            stop = nl ? (int64_t)(nl - s->buf) + 1 : end;
        }
        memset(&chunks[n], 0, sizeof(Chunk));
        chunks[n].spec = s;
        chunks[n].begin = at;
        chunks[n].end = stop;
        chunks[n].row_major = chunks[n].col_major = 1;
        n++;
        at = stop;
    }
    return n;
}

/* Threads for ``bytes`` of body: at most ``want`` (1..64), each with at least ``chunk``
 * bytes (starting a thread costs too). */
static int thread_count(long want, Py_ssize_t chunk, int64_t bytes) {
    if (want < 1) want = 1;
    if (want > 64) want = 64;
    if (chunk < 1) chunk = 1;
    int64_t by_size = bytes / chunk + 1;
    return (int)(want < by_size ? want : by_size);
}

static int get_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous%s buffer", what,
                     writable ? " writable" : "");
        return 0;
    }
    return 1;
}

PyDoc_STRVAR(count_lines_doc,
             "count_lines(buf, start, threads, chunk) -> int\n\n"
             "Lines in buf[start:] (newlines, plus a last line without one).");

static PyObject *py_count_lines(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t start, chunk;
    long threads;
    if (!PyArg_ParseTuple(args, "Onln", &obj, &start, &threads, &chunk)) return NULL;
    Py_buffer view;
    if (!get_buffer(obj, &view, 0, "buf")) return NULL;
    Spec s;
    memset(&s, 0, sizeof s);
    s.buf = view.buf;
    s.n = view.len;
    if (start < 0 || start > view.len) start = view.len;
    int want = thread_count(threads, chunk, view.len - start);
    Chunk chunks[64];
    int64_t total = 0;
    Py_BEGIN_ALLOW_THREADS
    int n = split(&s, start, view.len, want, chunks);
    run_all(chunks, n, count_thread);
    for (int i = 0; i < n; i++) total += chunks[i].lines;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromLongLong(total);
}

PyDoc_STRVAR(parse_doc,
             "parse(buf, start, nrows, ncols, nindex, vkind, itemsize, lo, hi, skew, rows, "
             "cols, vals, threads, chunk) -> (count, slow, order) or None\n\n"
             "Parse the body buf[start:] into rows/cols (int64, 0-based) and vals. The "
             "capacity of the outputs is rows' length (vals' when nindex is 0). None means "
             "rejected: re-parse with the reference parser. ``slow`` holds int64 triples "
             "(entry, token start, token end) of value tokens to convert there; ``order`` "
             "has bit 0 set when the entries are strictly increasing in row-major order, "
             "bit 1 in column-major order.");

static PyObject *py_parse(PyObject *self, PyObject *args) {
    PyObject *buf_obj, *rows_obj, *cols_obj, *vals_obj, *hi_obj;
    Py_ssize_t start, chunk;
    long threads;
    unsigned long long nrows, ncols;
    int nindex, vkind, itemsize, skew;
    long long lo;
    if (!PyArg_ParseTuple(args, "OnKKiiiLOpOOOln", &buf_obj, &start, &nrows, &ncols, &nindex,
                          &vkind, &itemsize, &lo, &hi_obj, &skew, &rows_obj, &cols_obj,
                          &vals_obj, &threads, &chunk))
        return NULL;
    if ((nindex != 0 && nindex != 2) || vkind < V_NONE || vkind > V_UINT ||
        (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8)) {
        PyErr_SetString(PyExc_ValueError, "bad parse() arguments");
        return NULL;
    }
    unsigned long long hi = PyLong_AsUnsignedLongLong(hi_obj);
    if (PyErr_Occurred()) return NULL;
    Py_buffer bv, rv = {0}, cv = {0}, vv = {0};
    if (!get_buffer(buf_obj, &bv, 0, "buf")) return NULL;
    int have_r = 0, have_c = 0, have_v = 0;
    PyObject *result = NULL;
    int64_t cap = 0;
    if (nindex) {
        if (!(have_r = get_buffer(rows_obj, &rv, 1, "rows"))) goto done;
        if (!(have_c = get_buffer(cols_obj, &cv, 1, "cols"))) goto done;
        cap = rv.len / 8;
        if (cv.len / 8 < cap) cap = cv.len / 8;
    }
    if (vkind != V_NONE) {
        if (!(have_v = get_buffer(vals_obj, &vv, 1, "vals"))) goto done;
        int width = vkind == V_F64 ? 8 : vkind == V_F32 ? 4 : itemsize;
        itemsize = width;
        if (!nindex || vv.len / width < cap) cap = vv.len / width;
    } else if (!nindex) {
        PyErr_SetString(PyExc_ValueError, "parse() needs indices or values");
        goto done;
    }
    Spec s = {bv.buf, bv.len, nindex, vkind, itemsize, skew, nrows, ncols, lo, hi,
              nindex ? rv.buf : NULL, nindex ? cv.buf : NULL, vkind ? vv.buf : NULL};
    if (start < 0 || start > bv.len) start = bv.len;
    int want = thread_count(threads, chunk, bv.len - start);
    Chunk chunks[64];
    int n = 0, rejected = 0, clipped = 0, row_major = 1, col_major = 1;
    int64_t count = 0, nslow = 0;
    Py_BEGIN_ALLOW_THREADS
    n = split(&s, start, bv.len, want, chunks);
    if (n > 1) {
        /* Each chunk writes at the offset of its first line: lines bound entries, so the
         * regions never overlap; the entries are moved together afterwards. */
        run_all(chunks, n, count_thread);
        int64_t offset = 0;
        for (int i = 0; i < n; i++) {
            chunks[i].out_begin = offset < cap ? offset : cap;
            offset += chunks[i].lines;
            chunks[i].out_end = offset < cap ? offset : cap;
        }
        clipped = offset > cap;
    } else if (n == 1) {
        chunks[0].out_begin = 0;
        chunks[0].out_end = cap;
    }
    run_all(chunks, n, parse_thread);
    for (int i = 0; i < n; i++) {
        if (chunks[i].rejected < 0) rejected = -1;
        else if (chunks[i].rejected && !rejected) rejected = 1;
    }
    if (n > 1 && rejected > 0 && clipped) {
        /* The regions were cut at the capacity (the body has blank or comment lines, or more
         * entries than declared), so a chunk may have run out of room only because those
         * before it left theirs unused: read the body once more in one piece. */
        for (int i = 0; i < n; i++) free(chunks[i].slow);
        n = split(&s, start, bv.len, 1, chunks);
        chunks[0].out_begin = 0;
        chunks[0].out_end = cap;
        parse_chunk(&chunks[0]);
        rejected = chunks[0].rejected;
    }
    if (!rejected) {
        for (int i = 0; i < n; i++) {
            Chunk *c = &chunks[i];
            if (c->out_begin != count) {
                if (nindex) {
                    memmove(s.rows + count, s.rows + c->out_begin, (size_t)c->count * 8);
                    memmove(s.cols + count, s.cols + c->out_begin, (size_t)c->count * 8);
                }
                if (vkind)
                    memmove(s.vals + count * itemsize, s.vals + c->out_begin * itemsize,
                            (size_t)c->count * itemsize);
                for (int64_t j = 0; j < c->nslow; j++) c->slow[3 * j] += count - c->out_begin;
            }
            if (nindex && count > 0 && c->count > 0) { /* across the chunk boundary */
                int64_t r0 = s.rows[count - 1], c0 = s.cols[count - 1];
                int64_t r1 = s.rows[count], c1 = s.cols[count];
                row_major &= r1 > r0 || (r1 == r0 && c1 > c0);
                col_major &= c1 > c0 || (c1 == c0 && r1 > r0);
            }
            row_major &= c->row_major;
            col_major &= c->col_major;
            count += c->count;
            nslow += c->nslow;
        }
    }
    Py_END_ALLOW_THREADS
    if (rejected < 0) {
        PyErr_NoMemory();
    } else if (rejected) {
        Py_INCREF(Py_None);
        result = Py_None;
    } else {
        PyObject *slow = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nslow * 3 * 8));
        if (slow) {
            char *dst = PyBytes_AS_STRING(slow);
            for (int i = 0; i < n; i++) {
                memcpy(dst, chunks[i].slow, (size_t)chunks[i].nslow * 3 * 8);
                dst += chunks[i].nslow * 3 * 8;
            }
            int order = nindex ? row_major | (col_major << 1) : 0;
            result = Py_BuildValue("(LNi)", (long long)count, slow, order);
        }
    }
    for (int i = 0; i < n; i++) free(chunks[i].slow);
done:
    PyBuffer_Release(&bv);
    if (have_r) PyBuffer_Release(&rv);
    if (have_c) PyBuffer_Release(&cv);
    if (have_v) PyBuffer_Release(&vv);
    return result;
}

/* -- writing ---------------------------------------------------------------------------- */

/* Decimal text of v at dst; returns the bytes written (at most 20). */
static int write_u64(char *dst, uint64_t v) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) dst[i] = tmp[n - 1 - i];
    return n;
}

static int write_i64(char *dst, int64_t v) {
    if (v >= 0) return write_u64(dst, (uint64_t)v);
    dst[0] = '-';
    return 1 + write_u64(dst + 1, (uint64_t)0 - (uint64_t)v);
}

static int64_t load_integer(const unsigned char *p, int itemsize, int is_signed) {
    switch (itemsize) {
    case 1: return is_signed ? (int64_t)*(const int8_t *)p : (int64_t)*p;
    case 2: { uint16_t u; memcpy(&u, p, 2); return is_signed ? (int64_t)(int16_t)u : u; }
    case 4: { uint32_t u; memcpy(&u, p, 4); return is_signed ? (int64_t)(int32_t)u : u; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

PyDoc_STRVAR(format_doc,
             "format_lines(rows, cols, vals, vkind, itemsize) -> bytes\n\n"
             "Matrix Market body lines: 'row col value' (rows and cols int64, 0-based, written "
             "1-based; None for an array file), the value (None for a pattern) as an integer "
             "(V_INT, V_UINT; BOOL as V_UINT of 1 byte) or a float64 as Python's repr "
             "(V_F64: the shortest text that reads back to the same bits; a NaN keeps its "
             "sign as '-nan').");

static PyObject *py_format_lines(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objs[3];
    int vkind, itemsize;
    if (!PyArg_ParseTuple(args, "OOOii", &objs[0], &objs[1], &objs[2], &vkind, &itemsize))
        return NULL;
    if ((objs[0] == Py_None) != (objs[1] == Py_None) ||
        (objs[2] == Py_None) != (vkind == V_NONE) || vkind == V_F32 ||
        (objs[0] == Py_None && objs[2] == Py_None) ||
        (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8)) {
        PyErr_SetString(PyExc_ValueError, "bad format_lines() arguments");
        return NULL;
    }
    Py_buffer views[3];
    int have[3] = {0, 0, 0};
    PyObject *result = NULL;
    for (int i = 0; i < 3; i++) {
        if (objs[i] == Py_None) continue;
        if (!get_buffer(objs[i], &views[i], 0, i < 2 ? "indices" : "vals")) goto done;
        have[i] = 1;
    }
    int64_t n = have[2] ? views[2].len / itemsize : views[0].len / 8;
    if ((have[0] && (views[0].len / 8 < n || views[1].len / 8 < n)) ||
        (have[2] && vkind == V_F64 && itemsize != 8)) {
        PyErr_SetString(PyExc_ValueError, "format_lines: arrays do not match");
        goto done;
    }
    /* 20 digits (21 with a sign) per integer; a float64 repr is at most 24 characters */
    int64_t per_line = (have[0] ? 2 * 21 + 1 : 0) + (have[2] ? 26 : 0) + 1;
    char *out = PyMem_Malloc((size_t)(n * per_line + 1));
    if (!out) { PyErr_NoMemory(); goto done; }
    char *w = out;
    const int64_t *rows = have[0] ? views[0].buf : NULL, *cols = have[1] ? views[1].buf : NULL;
    const unsigned char *vals = have[2] ? views[2].buf : NULL;
    for (int64_t k = 0; k < n; k++) {
        if (rows) {
            w += write_u64(w, (uint64_t)rows[k] + 1);
            *w++ = ' ';
            w += write_u64(w, (uint64_t)cols[k] + 1);
            if (vals) *w++ = ' ';
        }
        if (vkind == V_INT || vkind == V_UINT) {
            int64_t v = load_integer(vals + k * itemsize, itemsize, vkind == V_INT);
            w += vkind == V_INT ? write_i64(w, v) : write_u64(w, (uint64_t)v);
        } else if (vkind == V_F64) {
            double d;
            memcpy(&d, vals + 8 * k, 8);
            if (isnan(d)) {
                const char *text = signbit(d) ? "-nan" : "nan";
                size_t len = strlen(text);
                memcpy(w, text, len);
                w += len;
            } else {
                char *text = PyOS_double_to_string(d, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
                if (!text) { PyMem_Free(out); goto done; }
                size_t len = strlen(text);
                memcpy(w, text, len);
                w += len;
                PyMem_Free(text);
            }
        }
        *w++ = '\n';
    }
    result = PyBytes_FromStringAndSize(out, (Py_ssize_t)(w - out));
    PyMem_Free(out);
done:
    for (int i = 0; i < 3; i++)
        if (have[i]) PyBuffer_Release(&views[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"count_lines", py_count_lines, METH_VARARGS, count_lines_doc},
    {"parse", py_parse, METH_VARARGS, parse_doc},
    {"format_lines", py_format_lines, METH_VARARGS, format_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "graphblast.io._mmfast",
    "Fast path of the Matrix Market reader (see _mmio.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__mmfast(void) {
    PyObject *m = PyModule_Create(&module);
    if (m) {
        PyModule_AddIntConstant(m, "V_NONE", V_NONE);
        PyModule_AddIntConstant(m, "V_F64", V_F64);
        PyModule_AddIntConstant(m, "V_F32", V_F32);
        PyModule_AddIntConstant(m, "V_INT", V_INT);
        PyModule_AddIntConstant(m, "V_UINT", V_UINT);
    }
    return m;
}
