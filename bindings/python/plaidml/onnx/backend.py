"""plaidml as an ONNX backend (onnx.backend.base.Backend), for onnx's conformance tests.

    import plaidml.onnx.backend as backend
    rep = backend.prepare(model, "CPU")          # model: onnx.ModelProto
    outputs = rep.run([x, y])                    # numpy arrays, in graph-input order

Devices: the ONNX device strings "CPU", "OPENCL" and "VULKAN" (optionally ":N") name plaidml's
"cpu:0", "opencl:0" and "vulkan:0"; a plaidml id ("opencl:0") is taken as is. onnx's
BackendTest only asks for "CPU" (and "CUDA", which is refused), so the environment variable
PLAIDML_ONNX_TEST_DEVICE (e.g. "OPENCL" or "vulkan:0") says which device "CPU" means: the way to
run onnx's own harness on a GPU. One plaidml.Context per device serves every prepared model, so
compiled kernels are shared between test cases.

prepare() serializes the model and imports it with plaidml.onnx.load_bytes: a refusal raises
plaidml.onnx.Unsupported (a known gap, counted apart from failures). It does not run
onnx.checker first: the importer validates what it reads, and is the thing under test.

A model whose shapes depend on the contents of graph inputs (a Reshape's shape, a TopK's K, a
Reduce's axes given as inputs: plaidml.onnx.needed_inputs names them) cannot be imported before
those contents are known. prepare() then returns a rep that imports at run(), binding those
inputs to the values given (plaidml.onnx.load_bytes(values=...)), once per distinct value.

Outputs are returned as the program gives them, never cast, so a wrong dtype fails the test.
The one conversion is lossless: a bfloat16 output is read as its 16-bit patterns and returned as
ml_dtypes.bfloat16 (what onnx.numpy_helper uses), where plaidml.Context.run would widen it to
float32. bfloat16 inputs (ml_dtypes arrays) are passed as their bits the same way, which
Context.run cannot do.
"""
import ctypes
import os
import threading

import numpy as np
import onnx
import onnx.helper
from onnx.backend.base import Backend, BackendRep, namedtupledict

from .. import _ffi, core
from . import (MAX_IR_VERSION, MAX_OPSET, Unsupported, library, load,  # noqa: F401
               load_bytes, needed_inputs)

_BFLOAT16 = core.BFLOAT16
_DEVICE_KINDS = {"CPU": "cpu", "OPENCL": "opencl", "VULKAN": "vulkan"}
_contexts = {}
_contexts_lock = threading.Lock()


def plaidml_device(device="CPU"):
    """The plaidml device id for an ONNX device string ("CPU", "OPENCL:1", "vulkan:0").

    "CPU" means PLAIDML_ONNX_TEST_DEVICE when that is set. Raises ValueError for a device plaidml
    does not have (e.g. "CUDA")."""
    device = (device or "CPU").strip()
    if device.upper() in ("CPU", "CPU:0") and os.environ.get("PLAIDML_ONNX_TEST_DEVICE"):
        device = os.environ["PLAIDML_ONNX_TEST_DEVICE"].strip()
    kind, _, index = device.partition(":")
    if kind.upper() in _DEVICE_KINDS:
        return "%s:%s" % (_DEVICE_KINDS[kind.upper()], index or "0")
    raise ValueError("plaidml has no ONNX device %r (use CPU, OPENCL or VULKAN, or a plaidml "
                     "device id such as opencl:0)" % device)


def context(device="CPU"):
    """The shared plaidml.Context of an ONNX device string, made on first use."""
    ident = plaidml_device(device)
    with _contexts_lock:
        if ident not in _contexts:
            _contexts[ident] = core.Context(device=ident)
        return _contexts[ident]


def _bfloat16():
    try:
        import ml_dtypes  # an onnx dependency
        return np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        return None


def _input_buffer(ctx, name, value):
    arr = np.asarray(value)
    if arr.dtype.name != "bfloat16":
        return ctx._buffer_from(name, arr)
    arr = np.ascontiguousarray(arr).view(np.uint16)  # the bits, passed as plaidml bfloat16
    dims = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    out = ctypes.c_void_p()
    _ffi.call("plaidml_buffer_create_from_host", ctx._handle, _BFLOAT16, arr.ndim, dims,
              arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes, ctypes.byref(out))
    return out.value


def _read_output(handle):
    dtype = ctypes.c_int32()
    _ffi.call("plaidml_buffer_dtype", handle, ctypes.byref(dtype))
    bf16 = _bfloat16()
    if dtype.value != _BFLOAT16 or bf16 is None:
        return core._read_buffer(handle)
    rank = ctypes.c_size_t()
    _ffi.call("plaidml_buffer_rank", handle, ctypes.byref(rank))
    dims = []
    for axis in range(rank.value):
        d = ctypes.c_int64()
        _ffi.call("plaidml_buffer_dim", handle, axis, ctypes.byref(d))
        dims.append(d.value)
    arr = np.empty(dims, dtype=np.uint16)
    _ffi.call("plaidml_buffer_read", handle, arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes)
    return arr.view(bf16)


def execute(ctx, program, inputs, output_names):
    """Runs program on {name: array} and returns the arrays of output_names, in that order."""
    names = list(inputs)
    out_names = program.outputs
    buffers = (ctypes.c_void_p * max(len(names), 1))()
    outputs = (ctypes.c_void_p * max(len(out_names), 1))()
    try:
        for i, name in enumerate(names):
            buffers[i] = _input_buffer(ctx, name, inputs[name])
        _ffi.call("plaidml_execute", ctx._handle, program._handle, len(names),
                  _ffi.str_array(names), buffers, len(out_names), None, outputs)
        by_name = {name: _read_output(outputs[i]) for i, name in enumerate(out_names)}
    finally:
        destroy = _ffi.raw("plaidml_buffer_destroy")
        for b in list(buffers) + list(outputs):
            if b:
                destroy(b)
    missing = [n for n in output_names if n not in by_name]
    if missing:
        raise RuntimeError("the program has no output %s (it has %s)" % (missing, out_names))
    return [by_name[n] for n in output_names]


class _ValueSpecializer:
    """Imports a model once per value of the graph inputs its shapes depend on."""

    def __init__(self, data, dims, bound_names):
        self.data, self.dims = data, dims
        self.bound_names = list(bound_names)  # grows as the importer asks for more
        self.programs = {}

    def program(self, feeds):
        """(program, names of the inputs bound in it) for these feeds."""
        while True:
            values = {n: np.asarray(feeds[n]) for n in self.bound_names}
            key = tuple((n, v.dtype.str, v.shape, v.tobytes()) for n, v in values.items())
            if key in self.programs:
                return self.programs[key], self.bound_names
            more = [n for n in needed_inputs(self.data, values=values, **self.dims)
                    if n not in self.bound_names and n in feeds]
            if not more:  # imports, or fails with the importer's own message
                self.programs[key] = load_bytes(self.data, values=values, **self.dims)
                return self.programs[key], self.bound_names
            self.bound_names += more


class PlaidmlBackendRep(BackendRep):
    """A model imported into a plaidml program, ready to run on one device (or, with a
    specializer, imported at run() once per value of the inputs its shapes depend on)."""

    def __init__(self, program, input_names, output_names, ctx, specializer=None):
        self.program = program
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.context = ctx
        self.specializer = specializer

    def run(self, inputs, **kwargs):
        """inputs: a list of arrays in graph-input order (initializers excluded), a dict
        name -> array, or one array. Returns the outputs in graph-output order (a tuple, also
        indexable by output name)."""
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            inputs = list(inputs)
            if len(inputs) != len(self.input_names):
                raise ValueError("the model takes %d inputs %s, got %d" % (
                    len(self.input_names), self.input_names, len(inputs)))
            feeds = dict(zip(self.input_names, inputs))
        program = self.program
        if self.specializer is not None:
            program, bound = self.specializer.program(feeds)
            feeds = {n: v for n, v in feeds.items() if n not in bound}
        arrays = execute(self.context, program, feeds, self.output_names)
        return namedtupledict("Outputs", self.output_names)(*arrays)


class PlaidmlBackend(Backend):
    """onnx.backend.base.Backend over plaidml.onnx (see the module's docstring)."""

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model, device="CPU", dims=None, **kwargs):
        """Imports model (a ModelProto, serialized bytes or a path) for device.

        dims: {dim_param: size} fixing symbolic dimensions. Raises plaidml.onnx.Unsupported
        when the importer refuses the model."""
        dims = dict(dims or {})
        if isinstance(model, (str, os.PathLike)):
            program = load(model, **dims)
            model = onnx.load(model, load_external_data=False)
            specializer = None
        else:
            if isinstance(model, (bytes, bytearray)):
                data, model = bytes(model), onnx.load_from_string(bytes(model))
            else:
                data = model.SerializeToString()
            program, specializer = cls._import_bytes(data, dims)
        graph = model.graph
        initializers = {t.name for t in graph.initializer}
        input_names = [i.name for i in graph.input if i.name not in initializers]
        if program is not None and sorted(program.inputs) != sorted(input_names):
            raise RuntimeError("importer contract: program inputs %s, but the model's "
                               "non-initializer graph inputs are %s" % (program.inputs,
                                                                        input_names))
        return PlaidmlBackendRep(program, input_names, [o.name for o in graph.output],
                                 context(device), specializer)

    @staticmethod
    def _import_bytes(data, dims):
        """(program, None), or (None, a specializer) when the import needs input values."""
        try:
            return load_bytes(data, **dims), None
        except Unsupported:
            needed = needed_inputs(data, **dims)
            if not needed:
                raise
            return None, _ValueSpecializer(data, dims, needed)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Runs one node: wraps it in a model at opset kwargs['opset_version'] (default: the
        newest the importer and the installed onnx both know) and runs that."""
        opset = kwargs.pop("opset_version", min(MAX_OPSET, onnx.defs.onnx_opset_version()))
        if isinstance(inputs, dict):
            inputs = [inputs[n] for n in node.input if n]
        arrays = [np.asarray(a) for a in inputs]
        names = [n for n in node.input if n]
        if len(names) != len(arrays):
            raise ValueError("node %s has %d inputs, got %d arrays" % (node.op_type, len(names),
                                                                      len(arrays)))
        graph_inputs = [onnx.helper.make_tensor_value_info(
            n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in zip(names, arrays)]
        outs = [n for n in node.output if n]
        if outputs_info:
            graph_outputs = [onnx.helper.make_tensor_value_info(
                n, onnx.helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
                for n, (t, s) in zip(outs, outputs_info)]
        else:
            graph_outputs = [onnx.helper.make_empty_tensor_value_info(n) for n in outs]
        graph = onnx.helper.make_graph([node], "run_node_" + node.op_type, graph_inputs,
                                       graph_outputs)
        opsets = [onnx.helper.make_opsetid(node.domain or "", opset)]
        model = onnx.helper.make_model(graph, opset_imports=opsets, producer_name="plaidml",
                                       ir_version=min(MAX_IR_VERSION, onnx.IR_VERSION))
        return cls.prepare(model, device, **kwargs).run(arrays)

    @classmethod
    def supports_device(cls, device):
        """CPU always (or what PLAIDML_ONNX_TEST_DEVICE names); OPENCL and VULKAN when the
        library has the device and it is usable here. Never raises."""
        try:
            ident = plaidml_device(device)
        except ValueError:
            return False
        if ident.startswith("cpu:"):
            return True
        try:
            return any(d.id == ident and d.available for d in core.default_context().devices())
        except Exception:  # no library, no driver: the device is not supported here
            return False


prepare = PlaidmlBackend.prepare
run_model = PlaidmlBackend.run_model
run_node = PlaidmlBackend.run_node
supports_device = PlaidmlBackend.supports_device
is_compatible = PlaidmlBackend.is_compatible
