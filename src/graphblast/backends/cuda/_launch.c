/* Kernel launches without CuPy's argument handling.
 *
 * CuPy's RawKernel call costs 5.7 us with one argument and 9.0 us with twenty on the H200's
 * host (benchmarks/h200/launch_overhead.py), of which cuLaunchKernel itself is about 3; a
 * GraphBLAS call on a small graph makes one to four launches.  launch() packs the arguments
 * graphblast's kernels take - device arrays, None (a null pointer), NumPy scalars, Python
 * bools (bool), ints (int64) and floats (double), as CuPy passes them - into one 8-byte slot
 * each and calls the driver directly.
 *
 * The driver is found at run time (dlopen of libcuda.so.1, which CuPy has loaded already),
 * so this builds and imports on machines without CUDA: there, launch() raises.  No CUDA
 * header is needed: the one entry point is declared here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef int (*cu_launch_kernel_t)(void *f, unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                  void *stream, void **params, void **extra);

static cu_launch_kernel_t cu_launch_kernel = NULL;

/* Kernels of graphblast take at most about 30 arguments. */
#define MAX_ARGS 64

static int load_driver(void) {
    void *lib;
    if (cu_launch_kernel != NULL) return 0;
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        PyErr_Format(PyExc_RuntimeError, "the CUDA driver (libcuda.so.1) could not be loaded: %s",
                     dlerror());
        return -1;
    }
    cu_launch_kernel = (cu_launch_kernel_t)dlsym(lib, "cuLaunchKernel");
    if (cu_launch_kernel == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the CUDA driver has no cuLaunchKernel");
        return -1;
    }
    return 0;
}

/* One argument into its 8-byte slot (little-endian: a narrower value sits in the low bytes,
 * where the driver reads as many bytes as the kernel's parameter has). */
static int pack_one(PyObject *arg, uint64_t *slot, Py_ssize_t position) {
    *slot = 0;
    if (arg == Py_None) return 0;
    if (PyBool_Check(arg)) {  /* a C bool, as CuPy passes it */
        *slot = arg == Py_True;
        return 0;
    }
    if (PyLong_CheckExact(arg)) {
        long long v = PyLong_AsLongLong(arg);
        if (v == -1 && PyErr_Occurred()) return -1;
        memcpy(slot, &v, sizeof v);
        return 0;
    }
    if (PyFloat_CheckExact(arg)) {
        double v = PyFloat_AS_DOUBLE(arg);
        memcpy(slot, &v, sizeof v);
        return 0;
    }
    if (PyObject_CheckBuffer(arg)) {  /* a NumPy scalar (host bytes); CuPy arrays have none */
        Py_buffer view;
        int ok;
        if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return -1;
        ok = view.len == 1 || view.len == 2 || view.len == 4 || view.len == 8;
        if (ok) memcpy(slot, view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "kernel argument %zd: a scalar of %zd bytes "
                         "(1, 2, 4 or 8 expected)", position, view.len);
            return -1;
        }
        return 0;
    }
    {   /* a device array: its data pointer (CuPy: array.data.ptr) */
        PyObject *mem = PyObject_GetAttrString(arg, "data");
        PyObject *ptr;
        void *p;
        if (mem == NULL) goto unsupported;
        ptr = PyObject_GetAttrString(mem, "ptr");
        Py_DECREF(mem);
        if (ptr == NULL) goto unsupported;
        p = PyLong_AsVoidPtr(ptr);
        Py_DECREF(ptr);
        if (p == NULL && PyErr_Occurred()) return -1;
        memcpy(slot, &p, sizeof p);
        return 0;
    }
unsupported:
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "kernel argument %zd: %.100s is not a device array, None, "
                 "a NumPy scalar, an int or a float", position, Py_TYPE(arg)->tp_name);
    return -1;
}

static int pack(PyObject *args, uint64_t *slots, Py_ssize_t *count) {
    Py_ssize_t i, n;
    if (!PyTuple_Check(args)) {
        PyErr_SetString(PyExc_TypeError, "kernel arguments must be a tuple");
        return -1;
    }
    n = PyTuple_GET_SIZE(args);
    if (n > MAX_ARGS) {
        PyErr_Format(PyExc_ValueError, "%zd kernel arguments (at most %d)", n, MAX_ARGS);
        return -1;
    }
    for (i = 0; i < n; i++)
        if (pack_one(PyTuple_GET_ITEM(args, i), &slots[i], i) < 0) return -1;
    *count = n;
    return 0;
}

/* launch(function, grid, block, stream, args): cuLaunchKernel of the CUfunction handle
 * `function` (CuPy: RawKernel.kernel.ptr) with grid x block threads on `stream` (a handle;
 * 0 is the legacy default stream). */
static PyObject *launch(PyObject *self, PyObject *pyargs) {
    unsigned long long function, stream;
    unsigned int grid, block;
    PyObject *args;
    uint64_t slots[MAX_ARGS];
    void *params[MAX_ARGS];
    Py_ssize_t i, n = 0;
    int status;
    (void)self;
    if (!PyArg_ParseTuple(pyargs, "KIIKO", &function, &grid, &block, &stream, &args))
        return NULL;
    if (pack(args, slots, &n) < 0) return NULL;
    if (load_driver() < 0) return NULL;
    for (i = 0; i < n; i++) params[i] = &slots[i];
    status = cu_launch_kernel((void *)(uintptr_t)function, grid, 1, 1, block, 1, 1, 0,
                              (void *)(uintptr_t)stream, params, NULL);
    if (status != 0) {
        /* 2 is CUDA_ERROR_OUT_OF_MEMORY, named so that memory.is_out_of_memory sees it */
        return PyErr_Format(PyExc_RuntimeError, "cuLaunchKernel failed: CUDA error %d%s",
                            status, status == 2 ? " (CUDA_ERROR_OUT_OF_MEMORY)" : "");
    }
    Py_RETURN_NONE;
}

/* pack(args) -> bytes: the slots launch() would pass, for tests on machines without a GPU. */
static PyObject *pack_bytes(PyObject *self, PyObject *args) {
    uint64_t slots[MAX_ARGS];
    Py_ssize_t n = 0;
    (void)self;
    if (pack(args, slots, &n) < 0) return NULL;
    return PyBytes_FromStringAndSize((const char *)slots, n * (Py_ssize_t)sizeof(uint64_t));
}

static PyMethodDef methods[] = {
    {"launch", launch, METH_VARARGS,
     "launch(function, grid, block, stream, args): cuLaunchKernel with packed arguments"},
    {"pack", pack_bytes, METH_O, "pack(args) -> bytes: the 8-byte argument slots"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_launch",
                                    "Kernel launches without CuPy's argument handling.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__launch(void) { return PyModule_Create(&module); }
