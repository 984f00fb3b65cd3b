"""One function per op of the op library, generated from the library's op list.

    y = plaidml.op.conv(x, w, strides=(2, 2), padding="same_upper")
    z = plaidml.op.concatenate([a, b], axis=1)

is Builder.op("conv", x, w, ...) on the builder of the operands. dir(plaidml.op) lists the
ops the loaded library has; an unknown name raises AttributeError.
"""
import ctypes
import functools

from ._ffi import call, decode
from .edsl import _builder_of


def names():
    """The names of the ops in the loaded library, sorted."""
    return list(_names())


@functools.lru_cache(maxsize=None)
def _names():  # the library's op list is static
    count = ctypes.c_size_t()
    call("plaidml_op_count", ctypes.byref(count))
    result = []
    for i in range(count.value):
        out = ctypes.c_char_p()
        call("plaidml_op_name", i, ctypes.byref(out))
        result.append(decode(out.value))
    return tuple(result)


def has(name):
    """Whether the loaded library has op `name`."""
    return name in _names()


def _make(name):
    def apply(*operands, **attrs):
        b = _builder_of(operands)
        if b is None:
            raise TypeError("%s: at least one operand must be a plaidml Tensor" % name)
        return b.op(name, *operands, **attrs)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = "The op %r (docs/ops.md): Builder.op(%r, *operands, **attrs)." % (name, name)
    return apply


def __getattr__(name):
    if name.startswith("__") or name not in _names():
        raise AttributeError("plaidml.op has no op %r (the library's ops: plaidml.op_names())"
                             % name)
    fn = _make(name)
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(set(globals()) | set(names()))
