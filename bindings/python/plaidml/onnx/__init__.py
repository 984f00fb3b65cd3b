"""ONNX models as plaidml programs (ctypes over libplaidml_onnx, include/plaidml/onnx.h).

    import numpy as np, plaidml, plaidml.onnx
    program = plaidml.onnx.load("resnet50.onnx", batch=1)
    out = plaidml.Context().run(program, {"data": np.zeros((1, 3, 224, 224), np.float32)})

load(path, values=None, **dims) / load_bytes(data, values=None, **dims) import a model; each
keyword fixes a symbolic dimension (dim_param) to a size, and values ({input name: array}) binds
graph inputs to contents at import: how a model whose shapes depend on an input's contents (a
Reshape's shape, a TopK's K fed as a graph input) imports, once per value. needed_inputs(model)
says which inputs those are. describe(path) reports what would and would not import.
plaidml.onnx.backend is the onnx.backend.base.Backend for onnx's conformance tests.

libplaidml_onnx is its own library (a program that never imports ONNX needs neither it nor
protobuf), found in order: the file named by PLAIDML_ONNX_LIBRARY; the folder of the loaded
libplaidml (so PLAIDML_LIBRARY=<prefix>/lib/libplaidml.so finds <prefix>/lib/libplaidml_onnx.so);
next to this package; the system search path. libplaidml is loaded first, so the importer binds
to the same copy, whose plaidml_last_error_message() carries the importer's messages.

Errors are the package's exceptions (plaidml.errors), chosen by status as everywhere else, except
that PLAIDML_STATUS_UNSUPPORTED from an import raises Unsupported: a subclass of
plaidml.UnsupportedError, distinct so that a test harness can tell "the importer refuses this
model" (a known gap) from a device that cannot run a program or from a wrong answer.
"""
import ctypes
import ctypes.util
import os
import threading

import numpy as np

from .. import _ffi, errors
from ..core import BFLOAT16, Program, dtype_code

__all__ = ["load", "load_bytes", "needed_inputs", "describe", "library", "Unsupported", "MIN_IR_VERSION",
           "MAX_IR_VERSION", "MIN_OPSET", "MAX_OPSET"]

# The range the importer accepts (PLAIDML_ONNX_* in onnx.h).
MIN_IR_VERSION, MAX_IR_VERSION = 3, 14
MIN_OPSET, MAX_OPSET = 1, 28

_UNSUPPORTED = 5  # PLAIDML_STATUS_UNSUPPORTED


class Unsupported(errors.UnsupportedError):
    """The importer refuses the model (PLAIDML_STATUS_UNSUPPORTED): the message names the node
    (name, op type, opset) and the reason. Nothing ran; no wrong answer was given."""


_c = ctypes
_P = ctypes.POINTER
_PROTOTYPES = {
    "plaidml_onnx_options_create": (_c.c_int32, [_P(_c.c_void_p)]),
    "plaidml_onnx_options_destroy": (None, [_c.c_void_p]),
    "plaidml_onnx_options_set_dim": (_c.c_int32, [_c.c_void_p, _c.c_char_p, _c.c_int64]),
    "plaidml_onnx_options_set_channels_last": (_c.c_int32, [_c.c_void_p, _c.c_bool]),
    "plaidml_onnx_options_set_cache": (_c.c_int32, [_c.c_void_p, _c.c_bool]),
    "plaidml_onnx_options_set_input_value": (_c.c_int32, [_c.c_void_p, _c.c_char_p, _c.c_int32,
                                                          _c.c_size_t, _P(_c.c_int64),
                                                          _c.c_void_p, _c.c_size_t]),
    "plaidml_onnx_needed_inputs_bytes": (_c.c_int32, [_c.c_void_p, _c.c_size_t, _c.c_void_p,
                                                      _P(_c.c_void_p)]),
    "plaidml_onnx_needed_inputs_file": (_c.c_int32, [_c.c_char_p, _c.c_void_p,
                                                     _P(_c.c_void_p)]),
    "plaidml_onnx_import_bytes": (_c.c_int32, [_c.c_void_p, _c.c_size_t, _c.c_void_p,
                                               _P(_c.c_void_p)]),
    "plaidml_onnx_import_file": (_c.c_int32, [_c.c_char_p, _c.c_void_p, _P(_c.c_void_p)]),
    "plaidml_onnx_describe_file": (_c.c_int32, [_c.c_char_p, _P(_c.c_void_p)]),
}
_NAMES = ["libplaidml_onnx.so", "libplaidml_onnx.so.0", "libplaidml_onnx.dylib"]

_lock = threading.Lock()
_lib = None


def _plaidml_folder(lib):
    """The folder of the loaded libplaidml, also when ctypes was given a bare soname."""
    name = getattr(lib, "_name", "") or ""
    if os.sep in name:
        return os.path.dirname(os.path.realpath(name))
    try:  # Linux: the mapped file's path
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith("libplaidml.so"):
                    return os.path.dirname(path)
    except OSError:
        pass
    return None


def _candidates(plaidml_lib):
    env = os.environ.get("PLAIDML_ONNX_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    folders = [_plaidml_folder(plaidml_lib), os.path.dirname(here),
               os.path.dirname(os.path.dirname(here))]
    paths = [os.path.join(f, n) for f in folders if f for n in _NAMES]
    found = ctypes.util.find_library("plaidml_onnx")
    if found:
        paths.append(found)
    return paths, False


def library():
    """The loaded libplaidml_onnx (ctypes.CDLL, prototypes set), loading it on first use.

    Raises plaidml.LibraryNotFoundError (an ImportError) naming every path tried."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            _lib = _load()
    return _lib


def _load():
    plaidml_lib = _ffi.library()  # first: the importer must bind to this libplaidml
    paths, from_env = _candidates(plaidml_lib)
    tried = []
    for path in paths:
        if not from_env and os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        missing = [n for n in _PROTOTYPES if not hasattr(lib, n)]
        if missing:
            tried.append("%s (lacks %s)" % (path, ", ".join(missing)))
            continue
        for name, (restype, argtypes) in _PROTOTYPES.items():
            getattr(lib, name).restype = restype
            getattr(lib, name).argtypes = argtypes
        return lib
    raise errors.LibraryNotFoundError(
        "libplaidml_onnx could not be loaded; tried: %s. Set PLAIDML_ONNX_LIBRARY to the path "
        "of libplaidml_onnx.so." % ("; ".join(tried) or "nothing"))


def _call(name, *args):
    """Calls importer function `name`; a non-OK status raises the package's exception
    (Unsupported for PLAIDML_STATUS_UNSUPPORTED), with libplaidml's message."""
    status = getattr(library(), name)(*args)
    if status != 0:
        plaidml_lib = _ffi.library()
        message = plaidml_lib.plaidml_last_error_message().decode("utf-8", "replace")
        status_name = plaidml_lib.plaidml_status_name(status).decode()
        if status == _UNSUPPORTED:
            raise Unsupported(status, status_name, message, name)
        raise errors.from_status(status, status_name, message, name)


def _bind_value(opts, name, value):
    arr = np.asarray(value)
    if arr.dtype.name == "bfloat16":  # ml_dtypes, as onnx uses: passed as its bits
        code, arr = BFLOAT16, arr.view(np.uint16)
    else:
        code = dtype_code(arr.dtype)
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a scalar 1-D)
        arr = arr.copy(order="C")
    dims = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    _call("plaidml_onnx_options_set_input_value", opts, _ffi.encode(name), code, arr.ndim, dims,
          arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes)


def _options(dims, values, channels_last=True, cache=True):
    opts = ctypes.c_void_p()
    _call("plaidml_onnx_options_create", ctypes.byref(opts))
    try:
        _call("plaidml_onnx_options_set_channels_last", opts, bool(channels_last))
        _call("plaidml_onnx_options_set_cache", opts, bool(cache))
        for name, size in dims.items():
            if isinstance(size, bool) or not isinstance(size, int):
                raise TypeError("dimension %s: expected an int size, got %r" % (name, size))
            _call("plaidml_onnx_options_set_dim", opts, _ffi.encode(name), size)
        for name, value in (values or {}).items():
            _bind_value(opts, name, value)
    except BaseException:
        library().plaidml_onnx_options_destroy(opts)
        raise
    return opts


def _with_options(fn, *args, dims, values, channels_last=True, cache=True):
    """Calls fn(*args, options, &out) and returns out (a c_void_p)."""
    opts = _options(dims, values, channels_last, cache)
    try:
        out = ctypes.c_void_p()
        _call(fn, *args, opts, ctypes.byref(out))
        return out
    finally:
        library().plaidml_onnx_options_destroy(opts)


def load(path, values=None, *, channels_last=True, cache=True, **dims):
    """Imports the ONNX model at path (external data files are read from its folder).

    dims fixes symbolic dimensions by name (batch=1); the rest stay symbolic. values
    ({input name: array}) binds graph inputs to contents at import; they are no longer inputs of
    the program. channels_last=False keeps convolutions and pools channels first inside the
    program (plaidml_onnx_options_set_channels_last); the results agree within rounding.
    cache=False imports the file even when the disk cache holds its import
    (plaidml_onnx_options_set_cache). Returns a plaidml.Program whose inputs are the other graph
    inputs that are not initializers, with the model's names. Raises Unsupported,
    InvalidArgumentError, TypeMismatchError, PlaidMLIOError.
    """
    return Program(_with_options("plaidml_onnx_import_file", _ffi.encode(os.fspath(path)),
                                 dims=dims, values=values, channels_last=channels_last,
                                 cache=cache))


def load_bytes(data, values=None, *, channels_last=True, **dims):
    """Imports a serialized ModelProto (bytes; model.SerializeToString()). A model with
    external data is refused (use load). Otherwise as load()."""
    data = bytes(data)
    return Program(_with_options("plaidml_onnx_import_bytes", data, len(data), dims=dims,
                                 values=values, channels_last=channels_last))


def needed_inputs(model, values=None, **dims):
    """The graph inputs whose contents the import of model (a path, or serialized bytes) needs,
    given dims and the values bound so far: [] when it imports as it is or fails for a reason
    binding values cannot mend. Bind them (load(..., values=...)) and ask again: a node further
    on may need more."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        out = _with_options("plaidml_onnx_needed_inputs_bytes", data, len(data), dims=dims,
                            values=values)
    else:
        out = _with_options("plaidml_onnx_needed_inputs_file", _ffi.encode(os.fspath(model)),
                            dims=dims, values=values)
    try:
        return ctypes.string_at(out).decode("utf-8").splitlines()
    finally:
        _ffi.raw("plaidml_string_destroy")(out)


def describe(path):
    """A report on the model at path for people: producer, IR version, opsets, inputs and
    outputs, op counts, constants' size, and each node that would not import with the reason."""
    out = ctypes.c_void_p()
    _call("plaidml_onnx_describe_file", _ffi.encode(os.fspath(path)), ctypes.byref(out))
    try:
        return ctypes.string_at(out).decode("utf-8", "replace")
    finally:
        _ffi.raw("plaidml_string_destroy")(out)
