/* Kernel launches without CuPy's argument handling.
 *
 * CuPy's RawKernel call costs 5.7 us with one argument and 9.0 us with twenty on the H200's
 * host (benchmarks/profiling/launch_cost.py), of which cuLaunchKernel itself is about 3; a
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

/* The device array type (cupy.ndarray), registered by jit.py: checked before the buffer
 * protocol, which CuPy 13.5 and later also export (it raises for device memory). */
static PyTypeObject *array_type = NULL;

/* "data" and "ptr", made once: PyObject_GetAttrString would build each name per lookup,
 * twice per device array of every launch. */
static PyObject *name_data = NULL, *name_ptr = NULL;

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
    if (array_type != NULL && PyObject_TypeCheck(arg, array_type)) goto device_array;
    if (PyObject_CheckBuffer(arg)) {  /* a NumPy scalar: its host bytes */
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
device_array:
    {   /* its data pointer (CuPy: array.data.ptr) */
        PyObject *mem = PyObject_GetAttr(arg, name_data);
        PyObject *ptr;
        void *p;
        if (mem == NULL) goto unsupported;
        ptr = PyObject_GetAttr(mem, name_ptr);
        Py_DECREF(mem);
        if (ptr == NULL) goto unsupported;
        p = PyLong_AsVoidPtr(ptr);
        Py_DECREF(ptr);
        if (p == NULL && PyErr_Occurred()) return -1;
        memcpy(slot, &p, sizeof p);
        return 0;
    }
unsupported:
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "kernel argument %zd: %.100s is not a device array, None, "
                 "a NumPy scalar, a bool, an int or a float", position, Py_TYPE(arg)->tp_name);
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

/* launch(function, grid, block, stream, args) -> status: cuLaunchKernel of the CUfunction
 * handle `function` (CuPy: RawKernel.kernel.ptr) with grid x block threads on `stream` (a
 * handle; 0 is the legacy default stream); the driver's status (0 on success) is returned
 * for the caller to raise CuPy's own error with its name. */
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
    Py_BEGIN_ALLOW_THREADS
    status = cu_launch_kernel((void *)(uintptr_t)function, grid, 1, 1, block, 1, 1, 0,
                              (void *)(uintptr_t)stream, params, NULL);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(status);
}

/* set_array_type(type): the class whose instances are passed by their data pointer. */
static PyObject *set_array_type(PyObject *self, PyObject *type) {
    (void)self;
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "set_array_type expects a class");
        return NULL;
    }
    Py_INCREF(type);
    Py_XDECREF((PyObject *)array_type);
    array_type = (PyTypeObject *)type;
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
     "launch(function, grid, block, stream, args) -> status: cuLaunchKernel with packed "
     "arguments"},
    {"set_array_type", set_array_type, METH_O,
     "set_array_type(type): instances of `type` are passed by their data.ptr"},
    {"pack", pack_bytes, METH_O, "pack(args) -> bytes: the 8-byte argument slots"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_launch",
                                    "Kernel launches without CuPy's argument handling.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__launch(void) {
    name_data = PyUnicode_InternFromString("data");
    name_ptr = PyUnicode_InternFromString("ptr");
    if (name_data == NULL || name_ptr == NULL) return NULL;
    return PyModule_Create(&module);
}
