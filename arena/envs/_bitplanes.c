/* Bit masks to numpy arrays in one call: the learning environments' observation and
   action mask (arena.envs._gin).  Built only into the compiled copy (tools/compiled.py);
   without it the same arrays come from numpy calls (GinCore.observe_masked). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <string.h>

#define CARDS 52
#define MAX_ACTIONS 128


/* A byte's eight bits as eight 0/1 floats, lowest bit first: a plane is six of these
   copied and half of a seventh (bits 48-51), 3x faster than a float per bit. */
static float BYTE_FLOATS[256][8];

/* A card mask (an int in 0 .. 2**52 - 1). */
static int
card_mask(PyObject *value, unsigned long long *out)
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "a plane must be an int, not %.100s", Py_TYPE(value)->tp_name);
        return -1;
    }
    unsigned long long mask = PyLong_AsUnsignedLongLong(value);
    if (mask == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (mask >> CARDS) {
        PyErr_SetString(PyExc_ValueError, "a plane has bits past card 51");
        return -1;
    }
    *out = mask;
    return 0;
}

/* The legal ids (an int in 0 .. 2**actions - 1) as two 64-bit words, read without
   making an int (a shift and two comparisons took 0.1 us more). */
static int
id_mask(PyObject *value, int actions, unsigned long long words[2])
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "the legal ids must be an int, not %.100s", Py_TYPE(value)->tp_name);
        return -1;
    }
    unsigned char bytes[16];
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t needed = PyLong_AsNativeBytes(value, bytes, sizeof bytes,
                                             Py_ASNATIVEBYTES_LITTLE_ENDIAN
                                             | Py_ASNATIVEBYTES_UNSIGNED_BUFFER
                                             | Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    int fits = needed >= 0 && needed <= (Py_ssize_t)sizeof bytes;
#else
    int fits = _PyLong_AsByteArray((PyLongObject *)value, bytes, sizeof bytes, 1, 0) == 0;
#endif
    if (!fits)
        PyErr_Clear();  /* negative or past 128 bits: the message below */
    words[0] = words[1] = 0;
    for (int i = 0; fits && i < 16; i++)
        words[i >> 3] |= (unsigned long long)bytes[i] << (8 * (i & 7));
    int over = actions < 64 ? (words[0] >> actions) || words[1]
                            : actions < 128 && (words[1] >> (actions - 64));
    if (!fits || over) {
        PyErr_Format(PyExc_ValueError, "the legal ids must be an int in 0 .. 2**%d - 1", actions);
        return -1;
    }
    return 0;
}

/* Write the planes' 0/1 floats, then the tail's floats, at out. */
static int
write_observation(float *out, PyObject *planes, PyObject *tail)
{
    Py_ssize_t count = PyTuple_GET_SIZE(planes);
    for (Py_ssize_t p = 0; p < count; p++) {
        unsigned long long mask;
        if (card_mask(PyTuple_GET_ITEM(planes, p), &mask) < 0)
            return -1;
        float *cells = out + p * CARDS;
        for (int byte = 0; byte < 6; byte++)
            memcpy(cells + 8 * byte, BYTE_FLOATS[(mask >> (8 * byte)) & 0xff], 8 * sizeof(float));
        memcpy(cells + 48, BYTE_FLOATS[mask >> 48], 4 * sizeof(float));
    }
    if (tail != Py_None) {
        float *rest = out + count * CARDS;
        Py_ssize_t size = PyList_GET_SIZE(tail);
        for (Py_ssize_t i = 0; i < size; i++) {
            double value = PyFloat_AsDouble(PyList_GET_ITEM(tail, i));
            if (value == -1.0 && PyErr_Occurred())
                return -1;
            rest[i] = (float)value;
        }
    }
    return 0;
}

static void
write_mask(npy_int8 *out, int actions, const unsigned long long words[2])
{
    for (int i = 0; i < actions; i++)
        out[i] = (npy_int8)((words[i >> 6] >> (i & 63)) & 1);
}

static int
check_arguments(PyObject *planes, PyObject *tail, int actions)
{
    if (!PyTuple_Check(planes)) {
        PyErr_SetString(PyExc_TypeError, "planes must be a tuple of ints");
        return -1;
    }
    if (tail != Py_None && !PyList_Check(tail)) {
        PyErr_SetString(PyExc_TypeError, "tail must be a list of floats or None");
        return -1;
    }
    if (actions < 1 || actions > MAX_ACTIONS) {
        PyErr_Format(PyExc_ValueError, "actions must be in 1 .. %d", MAX_ACTIONS);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(encode_doc,
"encode(planes, legal, actions, tail) -> (observation, mask)\n\n"
"planes: a tuple of card masks; legal: the legal ids as an int mask; actions: the\n"
"number of ids; tail: a list of floats written after the planes, or None.  The\n"
"observation is float32, (len(planes) * 52 + len(tail),), or (len(planes), 52)\n"
"when tail is None; the mask int8 0/1, (actions,).");

static PyObject *
encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "encode takes planes, legal, actions, tail");
        return NULL;
    }
    PyObject *planes = args[0], *legal = args[1], *tail = args[3];
    int actions = (int)PyLong_AsLong(args[2]);
    if (actions == -1 && PyErr_Occurred())
        return NULL;
    if (check_arguments(planes, tail, actions) < 0)
        return NULL;
    unsigned long long words[2];
    if (id_mask(legal, actions, words) < 0)
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(planes);
    npy_intp shape[2];
    int dims;
    if (tail == Py_None) {
        shape[0] = count;
        shape[1] = CARDS;
        dims = 2;
    } else {
        shape[0] = count * CARDS + PyList_GET_SIZE(tail);
        dims = 1;
    }
    PyObject *observation = PyArray_SimpleNew(dims, shape, NPY_FLOAT32);
    if (observation == NULL)
        return NULL;
    if (write_observation((float *)PyArray_DATA((PyArrayObject *)observation), planes, tail) < 0) {
        Py_DECREF(observation);
        return NULL;
    }
    npy_intp length = actions;
    PyObject *mask = PyArray_SimpleNew(1, &length, NPY_INT8);
    if (mask == NULL) {
        Py_DECREF(observation);
        return NULL;
    }
    write_mask((npy_int8 *)PyArray_DATA((PyArrayObject *)mask), actions, words);
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(observation);
        Py_DECREF(mask);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, observation);
    PyTuple_SET_ITEM(pair, 1, mask);
    return pair;
}

/* Row row of a C-contiguous, writable 2-D array of type with exactly columns
   columns (a row past its rows, or a negative one, is refused). */
static char *
row_of(PyObject *array, int type, Py_ssize_t row, Py_ssize_t columns, const char *name)
{
    if (!PyArray_Check(array)) {
        PyErr_Format(PyExc_TypeError, "%s must be a numpy array", name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)array;
    if (PyArray_TYPE(a) != type || PyArray_NDIM(a) != 2 || !PyArray_IS_C_CONTIGUOUS(a)
        || !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s must be a writable C-contiguous 2-D array of %s", name,
                     type == NPY_FLOAT32 ? "float32" : "int8");
        return NULL;
    }
    if (row < 0 || row >= PyArray_DIM(a, 0) || PyArray_DIM(a, 1) != columns) {
        PyErr_Format(PyExc_ValueError, "%s has no row %zd of %zd cells", name, row, columns);
        return NULL;
    }
    return PyArray_BYTES(a) + row * PyArray_STRIDE(a, 0);
}

PyDoc_STRVAR(encode_into_doc,
"encode_into(observations, masks, row, planes, legal, tail) -> None\n\n"
"encode's arrays written into row row of a batch: observations (float32, rows x\n"
"(len(planes) * 52 + len(tail))) and masks (int8, rows x actions).");

static PyObject *
encode_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "encode_into takes observations, masks, row, planes, legal, tail");
        return NULL;
    }
    PyObject *planes = args[3], *legal = args[4], *tail = args[5];
    Py_ssize_t row = PyLong_AsSsize_t(args[2]);
    if (row == -1 && PyErr_Occurred())
        return NULL;
    if (!PyArray_Check(args[1]) || PyArray_NDIM((PyArrayObject *)args[1]) != 2) {
        PyErr_SetString(PyExc_ValueError, "masks must be a 2-D numpy array");
        return NULL;
    }
    int actions = (int)PyArray_DIM((PyArrayObject *)args[1], 1);
    if (check_arguments(planes, tail, actions) < 0)
        return NULL;
    Py_ssize_t cells = PyTuple_GET_SIZE(planes) * CARDS + (tail == Py_None ? 0 : PyList_GET_SIZE(tail));
    char *observation = row_of(args[0], NPY_FLOAT32, row, cells, "observations");
    if (observation == NULL)
        return NULL;
    char *mask = row_of(args[1], NPY_INT8, row, actions, "masks");
    if (mask == NULL)
        return NULL;
    unsigned long long words[2];
    if (id_mask(legal, actions, words) < 0)
        return NULL;
    if (write_observation((float *)observation, planes, tail) < 0)
        return NULL;
    write_mask((npy_int8 *)mask, actions, words);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL, encode_doc},
    {"encode_into", (PyCFunction)(void (*)(void))encode_into, METH_FASTCALL, encode_into_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_bitplanes",
    "Bit masks to the learning environments' numpy arrays in one call.", -1, methods,
};

PyMODINIT_FUNC
PyInit__bitplanes(void)
{
    import_array();
    for (int byte = 0; byte < 256; byte++)
        for (int bit = 0; bit < 8; bit++)
            BYTE_FLOATS[byte][bit] = (float)((byte >> bit) & 1);
    return PyModule_Create(&module);
}
