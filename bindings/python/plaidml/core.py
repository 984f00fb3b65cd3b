"""Contexts, devices, programs and running them on numpy arrays."""
import collections
import ctypes
import os
import threading

import numpy as np

from . import _ffi
from ._ffi import call, encode, decode

# plaidml_dtype <-> numpy. bfloat16 has no numpy dtype: such outputs come back as float32
# (exact), and bfloat16 inputs cannot be given from numpy (cast in the program instead).
DTYPES = {
    1: np.dtype(np.bool_), 2: np.dtype(np.int8), 3: np.dtype(np.int16),
    4: np.dtype(np.int32), 5: np.dtype(np.int64), 6: np.dtype(np.uint8),
    7: np.dtype(np.uint16), 8: np.dtype(np.uint32), 9: np.dtype(np.uint64),
    10: np.dtype(np.float16), 12: np.dtype(np.float32), 13: np.dtype(np.float64),
}
BFLOAT16 = 11
_FROM_NUMPY = {v: k for k, v in DTYPES.items()}
# Names accepted wherever a dtype is asked for (Builder.input): Tile's and numpy's.
_DTYPE_NAMES = {"bool": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "u8": 6, "u16": 7,
                "u32": 8, "u64": 9, "f16": 10, "bf16": 11, "bfloat16": 11, "f32": 12,
                "f64": 13}


def dtype_code(dtype):
    """The plaidml_dtype of a numpy dtype, a Tile name ("f32") or a numpy name ("float32")."""
    if dtype is None:
        return 0
    if isinstance(dtype, str) and dtype in _DTYPE_NAMES:
        return _DTYPE_NAMES[dtype]
    try:
        return _FROM_NUMPY[np.dtype(dtype)]
    except (TypeError, KeyError):
        raise TypeError("plaidml has no dtype %r (use bool, int8..int64, uint8..uint64, "
                        "float16, bfloat16, float32, float64)" % (dtype,)) from None


def version():
    """The version of the loaded libplaidml, "MAJOR.MINOR.PATCH"."""
    return decode(_ffi.raw("plaidml_version")())


Device = collections.namedtuple("Device", "id name available reason")
Device.__doc__ = "A device of a context: id ('cpu:0'), name, available (bool), reason if not."


class Context:
    """Owns the devices and the compiled-program cache. Thread-safe; make one per application.

    device: a device id ("cpu:0"; None: PLAIDML_DEVICE or cpu:0); num_threads: CPU worker
    threads (None: default); cache_dir: the on-disk kernel cache folder ("" turns it off;
    None: the default, see plaidml.h); memory_limit: the most one run or buffer may use on a
    device whose buffers are host memory, in bytes (None or 0: PLAIDML_MEMORY_LIMIT, else the
    least of physical memory, the cgroup's limit and RLIMIT_AS/RLIMIT_DATA). A run over it
    raises OutOfMemoryError (a MemoryError) with the figures before allocating anything.
    """

    def __init__(self, device=None, num_threads=None, cache_dir=None, memory_limit=None):
        opts = ctypes.c_void_p()
        call("plaidml_context_options_create", ctypes.byref(opts))
        try:
            if device is not None:
                call("plaidml_context_options_set_string", opts, 2, encode(device))
            if num_threads is not None:
                call("plaidml_context_options_set_int", opts, 1, int(num_threads))
            if cache_dir is not None:
                call("plaidml_context_options_set_string", opts, 3, encode(cache_dir))
            if memory_limit is not None:
                call("plaidml_context_options_set_int", opts, 4, int(memory_limit))
            handle = ctypes.c_void_p()
            call("plaidml_context_create", opts, ctypes.byref(handle))
        finally:
            _ffi.raw("plaidml_context_options_destroy")(opts)
        self._handle = handle

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _ffi._lib is not None:
            _ffi.raw("plaidml_context_destroy")(handle)
            self._handle = None

    @property
    def device(self):
        """The id of the selected device."""
        out = ctypes.c_char_p()
        call("plaidml_context_device", self._handle, ctypes.byref(out))
        return decode(out.value)

    def select_device(self, device_id):
        call("plaidml_context_select_device", self._handle, encode(device_id))

    def devices(self):
        """Every device the context knows, usable or not, as Device tuples."""
        count = ctypes.c_size_t()
        call("plaidml_device_count", self._handle, ctypes.byref(count))
        result = []
        for i in range(count.value):
            ident, name, reason = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
            ok = ctypes.c_bool()
            call("plaidml_device_id", self._handle, i, ctypes.byref(ident))
            call("plaidml_device_name", self._handle, i, ctypes.byref(name))
            call("plaidml_device_available", self._handle, i, ctypes.byref(ok),
                 ctypes.byref(reason))
            result.append(Device(decode(ident.value), decode(name.value), ok.value,
                                 decode(reason.value)))
        return result

    @property
    def cache_dir(self):
        out = ctypes.c_char_p()
        call("plaidml_context_cache_dir", self._handle, ctypes.byref(out))
        return decode(out.value)

    def stats(self):
        """Compile statistics as a dict (compiles, cache_hits, compile_seconds, ...)."""
        s = _ffi.Stats()
        s.struct_size = ctypes.sizeof(s)
        call("plaidml_context_stats", self._handle, ctypes.byref(s))
        return {name: getattr(s, name) for name, _ in s._fields_ if name != "struct_size"}

    def set_profiling(self, enabled=True):
        """Records compiles, kernel runs and transfers from now on (see profile_trace)."""
        call("plaidml_context_set_profiling", self._handle, bool(enabled))

    def profile_trace(self):
        """What was recorded, as a Chrome trace (a JSON string Perfetto opens)."""
        return self._string("plaidml_context_profile_trace")

    def profile_summary(self, top=20):
        """The top kernels by time and the totals of compiles and transfers, as text."""
        return self._string("plaidml_context_profile_summary", top)

    def profile_clear(self):
        call("plaidml_context_profile_clear", self._handle)

    def _string(self, fn, *args):
        out = ctypes.c_void_p()
        call(fn, self._handle, *args, ctypes.byref(out))
        try:
            return ctypes.string_at(out).decode("utf-8")
        finally:
            _ffi.raw("plaidml_string_destroy")(out)

    def compile(self, program, shapes):
        """Compiles program ahead of a run: shapes maps input name -> (dims, dtype). Raises
        OutOfMemoryError when a run at these shapes would exceed the memory budget."""
        names, arr, _keep = _shape_array(shapes)
        call("plaidml_compile", self._handle, program._handle, len(names),
             _ffi.str_array(names), arr)

    def memory(self, program, shapes):
        """What one run at shapes (input name -> (dims, dtype)) needs on the device, in bytes,
        known before running (compiles like compile()): a dict of constants_bytes, arena_bytes
        (intermediates as planned), unshared_bytes, inputs_bytes, outputs_bytes, peak_bytes,
        device_memory_bytes (0 when the device does not say) and budget_bytes (what peak_bytes
        is checked against: the context's memory_limit on a host-memory device such as the CPU,
        else the device's memory; 0 when there is none)."""
        names, arr, _keep = _shape_array(shapes)
        m = _ffi.Memory()
        m.struct_size = ctypes.sizeof(m)
        call("plaidml_program_memory", self._handle, program._handle, len(names),
             _ffi.str_array(names), arr, ctypes.byref(m))
        return {name: getattr(m, name) for name, _ in m._fields_ if name != "struct_size"}

    def run(self, program, inputs):
        """Runs program; inputs maps every input name to an array-like.

        Returns a dict output name -> numpy array (in the program's output order). Inputs are
        copied as C-contiguous arrays of their own dtype (a Python float is float64: pass
        np.float32 arrays to a program whose inputs are float32-typed).
        """
        if not isinstance(program, Program):
            raise TypeError("run() expects a plaidml.Program, got %r" % type(program).__name__)
        names = list(inputs)
        buffers = (ctypes.c_void_p * max(len(names), 1))()
        out_names = program.outputs
        outputs = (ctypes.c_void_p * max(len(out_names), 1))()
        try:
            for i, name in enumerate(names):
                buffers[i] = self._buffer_from(name, inputs[name])
            call("plaidml_execute", self._handle, program._handle, len(names),
                 _ffi.str_array(names), buffers, len(out_names), None, outputs)
            return {name: _read_buffer(outputs[i]) for i, name in enumerate(out_names)}
        finally:
            destroy = _ffi.raw("plaidml_buffer_destroy")
            for b in list(buffers) + list(outputs):
                if b:
                    destroy(b)

    def _buffer_from(self, name, value):
        arr = np.asarray(value)
        if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a scalar 1-D)
            arr = arr.copy(order="C")
        if arr.dtype not in _FROM_NUMPY:
            raise TypeError("input %r: numpy dtype %s has no plaidml dtype" % (name, arr.dtype))
        dims = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
        out = ctypes.c_void_p()
        call("plaidml_buffer_create_from_host", self._handle, _FROM_NUMPY[arr.dtype], arr.ndim,
             dims, arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes, ctypes.byref(out))
        return out.value


def _shape_array(shapes):
    """(names, plaidml_tensor_shape array, the dims arrays it points into) for shapes."""
    names = list(shapes)
    arr = (_ffi.TensorShape * max(len(names), 1))()
    keep = []
    for i, name in enumerate(names):
        dims, dtype = shapes[name]
        d = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        keep.append(d)
        arr[i] = _ffi.TensorShape(dtype_code(dtype), len(dims), d)
    return names, arr, keep


def _read_buffer(handle):
    dtype, rank = ctypes.c_int32(), ctypes.c_size_t()
    call("plaidml_buffer_dtype", handle, ctypes.byref(dtype))
    call("plaidml_buffer_rank", handle, ctypes.byref(rank))
    dims = []
    for axis in range(rank.value):
        d = ctypes.c_int64()
        call("plaidml_buffer_dim", handle, axis, ctypes.byref(d))
        dims.append(d.value)
    np_dtype = np.dtype(np.uint16) if dtype.value == BFLOAT16 else DTYPES[dtype.value]
    arr = np.empty(dims, dtype=np_dtype)
    call("plaidml_buffer_read", handle, arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes)
    if dtype.value == BFLOAT16:
        arr = (arr.astype(np.uint32) << 16).view(np.float32)
    return arr


class Program:
    """An immutable, shape-polymorphic program (from Tile text, a Builder or a gradient)."""

    def __init__(self, handle):
        self._handle = handle

    @classmethod
    def from_tile(cls, text):
        """Parses Tile text; a malformed text raises ParseError with line:column."""
        out = ctypes.c_void_p()
        call("plaidml_program_from_tile", encode(text), ctypes.byref(out))
        return cls(out)

    @classmethod
    def load(cls, path):
        """Reads a program that save() wrote. Its weights are the file's mapped pages: delete
        the file or rename another over it at will, but never write it in place while the
        program lives. Raises NotFoundError or PlaidMLIOError naming what is wrong."""
        out = ctypes.c_void_p()
        call("plaidml_program_load", encode(os.fspath(path)), ctypes.byref(out))
        return cls(out)

    def save(self, path):
        """Writes the program and its constants to one file that load() reads back in any later
        process, without the frontend that built it (an imported ONNX model, say)."""
        call("plaidml_program_save", self._handle, encode(os.fspath(path)))

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _ffi._lib is not None:
            _ffi.raw("plaidml_program_destroy")(handle)
            self._handle = None

    def _names(self, kind):
        count = ctypes.c_size_t()
        call("plaidml_program_%s_count" % kind, self._handle, ctypes.byref(count))
        names = []
        for i in range(count.value):
            out = ctypes.c_char_p()
            call("plaidml_program_%s_name" % kind, self._handle, i, ctypes.byref(out))
            names.append(decode(out.value))
        return names

    @property
    def inputs(self):
        """Input names in declaration order."""
        return self._names("input")

    @property
    def outputs(self):
        """Output names in declaration order."""
        return self._names("output")

    def input_types(self):
        """{name: (dims, numpy dtype or None)} in declaration order; each dim is its name,
        its fixed size (an int), or None when unnamed; dims is None for any rank."""
        types = {}
        for i, name in enumerate(self.inputs):
            code, rank = ctypes.c_int32(), ctypes.c_size_t()
            call("plaidml_program_input_type", self._handle, i, ctypes.byref(code),
                 ctypes.byref(rank))
            dims = None
            if rank.value != _ffi.RANK_UNKNOWN:
                dims = []
                for axis in range(rank.value):
                    out = ctypes.c_char_p()
                    call("plaidml_program_input_dim", self._handle, i, axis, ctypes.byref(out))
                    text = decode(out.value)
                    dims.append(int(text) if text.isdigit() else (text or None))
            types[name] = (dims, DTYPES.get(code.value))
        return types

    def constants(self):
        """(count, total bytes) of the program's constants."""
        count, size = ctypes.c_size_t(), ctypes.c_uint64()
        call("plaidml_program_constants", self._handle, ctypes.byref(count), ctypes.byref(size))
        return count.value, size.value

    def print(self):
        """The program as Tile text (parses back to the same program)."""
        out = ctypes.c_void_p()
        call("plaidml_program_print", self._handle, ctypes.byref(out))
        try:
            return ctypes.string_at(out).decode("utf-8")
        finally:
            _ffi.raw("plaidml_string_destroy")(out)

    __str__ = print

    def __repr__(self):
        return "<plaidml.Program inputs=%s outputs=%s>" % (self.inputs, self.outputs)

    def gradient(self, loss, wrt, grad_names=None):
        """A new program: this program's outputs, then d(loss)/d(input) for each input in wrt.

        loss: the name of a scalar output; wrt: input names; grad_names: the gradient outputs'
        names (None: "<input>_grad").
        """
        if isinstance(wrt, str):
            wrt = [wrt]
        wrt = list(wrt)
        names = _ffi.str_array(grad_names) if grad_names is not None else None
        if grad_names is not None and len(grad_names) != len(wrt):
            raise ValueError("gradient: %d grad_names for %d inputs" % (len(grad_names), len(wrt)))
        out = ctypes.c_void_p()
        call("plaidml_program_gradient", self._handle, encode(loss), len(wrt),
             _ffi.str_array(wrt), names, ctypes.byref(out))
        return Program(out)


def devices():
    """The devices of a default context: a list of Device(id, name, available, reason)."""
    return default_context().devices()


_default = None
_default_lock = threading.Lock()


def default_context():
    """A process-wide Context with default options, made on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


def run(program, inputs):
    """Runs program in the default context (see Context.run)."""
    return default_context().run(program, inputs)
