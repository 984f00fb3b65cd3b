"""Loading libplaidml and declaring its C functions (ctypes). Internal to the package.

The library is found, in order: the file named by the environment variable PLAIDML_LIBRARY; a
libplaidml.so next to this package or in the lib/ folder of an installed prefix; then the system
search path (ctypes.util.find_library). It is loaded on first use, so `import plaidml` never
fails for a missing library: the first call does, with a message saying where it looked.
"""
import ctypes
import ctypes.util
import os
import threading

from . import errors

c_status = ctypes.c_int32
c_size = ctypes.c_size_t
c_str = ctypes.c_char_p
c_p = ctypes.c_void_p


class Value(ctypes.Structure):
    """plaidml_value: a tensor value inside a builder."""

    _fields_ = [("id", ctypes.c_int32)]


class Expr(ctypes.Structure):
    """plaidml_expr: an integer expression inside a builder."""

    _fields_ = [("id", ctypes.c_int32)]


class TensorShape(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("rank", c_size),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


class Stats(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("compiles", ctypes.c_int64),
                ("cache_hits", ctypes.c_int64), ("compile_seconds", ctypes.c_double),
                ("last_compile_seconds", ctypes.c_double),
                ("kernels_compiled", ctypes.c_int64), ("kernel_memory_hits", ctypes.c_int64),
                ("disk_hits", ctypes.c_int64), ("disk_misses", ctypes.c_int64),
                ("disk_invalid", ctypes.c_int64), ("disk_writes", ctypes.c_int64),
                ("disk_write_failures", ctypes.c_int64), ("constant_uploads", ctypes.c_int64),
                ("constant_bytes", ctypes.c_int64), ("plan_disk_hits", ctypes.c_int64),
                ("plan_disk_misses", ctypes.c_int64), ("plan_disk_writes", ctypes.c_int64),
                ("kernel_library_hits", ctypes.c_int64)]


class Memory(ctypes.Structure):
    _fields_ = [("struct_size", c_size)] + [
        (name, ctypes.c_uint64) for name in (
            "constants_bytes", "arena_bytes", "unshared_bytes", "inputs_bytes", "outputs_bytes",
            "peak_bytes", "device_memory_bytes", "budget_bytes")]


P = ctypes.POINTER
PP = lambda t: P(P(t))  # noqa: E731
RANK_UNKNOWN = ctypes.c_size_t(-1).value

# name: (restype, argtypes). Functions returning plaidml_status are checked by `call`.
_PROTOTYPES = {
    "plaidml_version": (c_str, []),
    "plaidml_status_name": (c_str, [c_status]),
    "plaidml_last_error_message": (c_str, []),
    "plaidml_string_destroy": (None, [c_p]),
    "plaidml_set_log_level": (c_status, [ctypes.c_int32]),
    "plaidml_dtype_size": (c_status, [ctypes.c_int32, P(c_size)]),
    "plaidml_context_options_create": (c_status, [P(c_p)]),
    "plaidml_context_options_destroy": (None, [c_p]),
    "plaidml_context_options_set_int": (c_status, [c_p, ctypes.c_int32, ctypes.c_int64]),
    "plaidml_context_options_set_string": (c_status, [c_p, ctypes.c_int32, c_str]),
    "plaidml_context_create": (c_status, [c_p, P(c_p)]),
    "plaidml_context_destroy": (None, [c_p]),
    "plaidml_device_count": (c_status, [c_p, P(c_size)]),
    "plaidml_device_id": (c_status, [c_p, c_size, P(c_str)]),
    "plaidml_device_name": (c_status, [c_p, c_size, P(c_str)]),
    "plaidml_device_available": (c_status, [c_p, c_size, P(ctypes.c_bool), P(c_str)]),
    "plaidml_context_select_device": (c_status, [c_p, c_str]),
    "plaidml_context_device": (c_status, [c_p, P(c_str)]),
    "plaidml_context_stats": (c_status, [c_p, P(Stats)]),
    "plaidml_context_cache_dir": (c_status, [c_p, P(c_str)]),
    "plaidml_context_set_profiling": (c_status, [c_p, ctypes.c_bool]),
    "plaidml_context_profile_trace": (c_status, [c_p, P(c_p)]),
    "plaidml_context_profile_summary": (c_status, [c_p, ctypes.c_size_t, P(c_p)]),
    "plaidml_context_profile_clear": (c_status, [c_p]),
    "plaidml_program_from_tile": (c_status, [c_str, P(c_p)]),
    "plaidml_program_save": (c_status, [c_p, c_str]),
    "plaidml_program_load": (c_status, [c_str, P(c_p)]),
    "plaidml_program_destroy": (None, [c_p]),
    "plaidml_program_print": (c_status, [c_p, P(c_p)]),
    "plaidml_program_input_count": (c_status, [c_p, P(c_size)]),
    "plaidml_program_input_name": (c_status, [c_p, c_size, P(c_str)]),
    "plaidml_program_output_count": (c_status, [c_p, P(c_size)]),
    "plaidml_program_output_name": (c_status, [c_p, c_size, P(c_str)]),
    "plaidml_program_gradient": (c_status, [c_p, c_str, c_size, P(c_str), P(c_str), P(c_p)]),
    "plaidml_builder_create": (c_status, [c_str, P(c_p)]),
    "plaidml_builder_destroy": (None, [c_p]),
    "plaidml_builder_add_input": (c_status, [c_p, c_str, c_size, P(c_str), ctypes.c_int32,
                                             P(Value)]),
    "plaidml_builder_int_constant": (c_status, [c_p, ctypes.c_int64, P(Value)]),
    "plaidml_builder_float_constant": (c_status, [c_p, ctypes.c_double, P(Value)]),
    "plaidml_builder_dim_constant": (c_status, [c_p, Expr, P(Value)]),
    "plaidml_builder_add_constant": (c_status, [c_p, c_str, ctypes.c_int32, c_size,
                                                P(ctypes.c_int64), c_p, c_size, c_p, c_p,
                                                P(Value)]),
    "plaidml_builder_value_size": (c_status, [c_p, Value, c_size, P(ctypes.c_int64)]),
    "plaidml_program_input_type": (c_status, [c_p, c_size, P(ctypes.c_int32), P(c_size)]),
    "plaidml_program_input_dim": (c_status, [c_p, c_size, c_size, P(c_str)]),
    "plaidml_program_constants": (c_status, [c_p, P(c_size), P(ctypes.c_uint64)]),
    "plaidml_builder_call": (c_status, [c_p, c_str, c_size, P(Value), c_size, P(Expr),
                                        P(Value)]),
    "plaidml_builder_add_output": (c_status, [c_p, c_str, Value]),
    "plaidml_builder_add_assertion": (c_status, [c_p, ctypes.c_int32, Expr, Expr, c_str, c_size,
                                                 P(Expr)]),
    "plaidml_builder_build": (c_status, [c_p, P(c_p)]),
    "plaidml_expr_index": (c_status, [c_p, c_str, P(Expr)]),
    "plaidml_expr_dim": (c_status, [c_p, c_str, P(Expr)]),
    "plaidml_expr_int": (c_status, [c_p, ctypes.c_int64, P(Expr)]),
    "plaidml_expr_binary": (c_status, [c_p, ctypes.c_int32, Expr, Expr, P(Expr)]),
    "plaidml_expr_neg": (c_status, [c_p, Expr, P(Expr)]),
    "plaidml_contraction_create": (c_status, [c_p, ctypes.c_int32, ctypes.c_int32, P(c_p)]),
    "plaidml_contraction_destroy": (None, [c_p]),
    "plaidml_contraction_set_output": (c_status, [c_p, c_size, P(Expr), P(Expr)]),
    "plaidml_contraction_add_input": (c_status, [c_p, Value, c_size, P(Expr)]),
    "plaidml_contraction_add_constraint": (c_status, [c_p, Expr, Expr]),
    "plaidml_contraction_set_default": (c_status, [c_p, Value]),
    "plaidml_builder_add_contraction": (c_status, [c_p, c_p, P(Value)]),
    "plaidml_builder_value_rank": (c_status, [c_p, Value, P(c_size)]),
    "plaidml_builder_value_dim": (c_status, [c_p, Value, c_size, P(Expr)]),
    "plaidml_attrs_create": (c_status, [P(c_p)]),
    "plaidml_attrs_destroy": (None, [c_p]),
    "plaidml_attrs_set_int": (c_status, [c_p, c_str, ctypes.c_int64]),
    "plaidml_attrs_set_ints": (c_status, [c_p, c_str, c_size, P(ctypes.c_int64)]),
    "plaidml_attrs_set_float": (c_status, [c_p, c_str, ctypes.c_double]),
    "plaidml_attrs_set_string": (c_status, [c_p, c_str, c_str]),
    "plaidml_builder_op": (c_status, [c_p, c_str, c_size, P(Value), c_p, P(Value)]),
    "plaidml_op_count": (c_status, [P(c_size)]),
    "plaidml_op_name": (c_status, [c_size, P(c_str)]),
    "plaidml_function_count": (c_status, [P(c_size)]),
    "plaidml_function_name": (c_status, [c_size, P(c_str)]),
    "plaidml_buffer_create_from_host": (c_status, [c_p, ctypes.c_int32, c_size,
                                                   P(ctypes.c_int64), c_p, c_size, P(c_p)]),
    "plaidml_buffer_destroy": (None, [c_p]),
    "plaidml_buffer_read": (c_status, [c_p, c_p, c_size]),
    "plaidml_buffer_dtype": (c_status, [c_p, P(ctypes.c_int32)]),
    "plaidml_buffer_rank": (c_status, [c_p, P(c_size)]),
    "plaidml_buffer_dim": (c_status, [c_p, c_size, P(ctypes.c_int64)]),
    "plaidml_buffer_byte_size": (c_status, [c_p, P(c_size)]),
    "plaidml_compile": (c_status, [c_p, c_p, c_size, P(c_str), P(TensorShape)]),
    "plaidml_program_memory": (c_status, [c_p, c_p, c_size, P(c_str), P(TensorShape),
                                          P(Memory)]),
    "plaidml_execute": (c_status, [c_p, c_p, c_size, P(c_str), P(c_p), c_size, P(c_str),
                                   P(c_p)]),
}

_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get("PLAIDML_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    names = ["libplaidml.so", "libplaidml.so.0", "libplaidml.dylib"]
    folders = [here, os.path.dirname(here)]
    # An installed layout: <prefix>/lib/python3.X/site-packages/plaidml -> <prefix>/lib.
    folders.append(os.path.normpath(os.path.join(here, "..", "..", "..")))
    paths = [os.path.join(f, n) for f in folders for n in names]
    found = ctypes.util.find_library("plaidml")
    if found:
        paths.append(found)
    return paths, False


def library():
    """The loaded libplaidml (a ctypes.CDLL with prototypes set), loading it on first use."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            _lib = _load()
    return _lib


def _load():
    paths, from_env = _candidates()
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
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(lib, name, None)  # an older library may lack newer functions
            if fn is not None:
                fn.restype = restype
                fn.argtypes = argtypes
        return lib
    hint = ("PLAIDML_LIBRARY=%s" % paths[0] if from_env
            else "the environment variable PLAIDML_LIBRARY")
    raise errors.LibraryNotFoundError(
        "libplaidml could not be loaded; tried: %s. Set %s to the path of libplaidml.so "
        "(e.g. <build>/src/capi/libplaidml.so)." % ("; ".join(tried) or "nothing", hint))


def call(name, *args):
    """Calls C function `name`, raising the plaidml error of its status unless it is OK."""
    lib = library()
    status = getattr(lib, name)(*args)
    if status != 0:
        message = lib.plaidml_last_error_message().decode("utf-8", "replace")
        status_name = lib.plaidml_status_name(status).decode()
        raise errors.from_status(status, status_name, message, name)


def raw(name):
    """The C function `name` itself (for functions returning no status)."""
    return getattr(library(), name)


def encode(s):
    if isinstance(s, bytes):
        return s
    if not isinstance(s, str):
        raise TypeError("expected a string, got %r" % (s,))
    return s.encode("utf-8")


def decode(b):
    return b.decode("utf-8") if b is not None else None


def str_array(names):
    arr = (c_str * len(names))()
    for i, n in enumerate(names):
        arr[i] = encode(n)
    return arr
