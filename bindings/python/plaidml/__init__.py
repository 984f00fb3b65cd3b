"""plaidml: a tensor compiler, from Python (ctypes over libplaidml's C ABI).

    import numpy as np, plaidml
    b = plaidml.Builder("matmul")
    A, B = b.input("A", ("M", "K")), b.input("B", ("K", "N"))
    M, N = b.dims("M", "N")
    i, j, k = b.indices("i j k")
    C = b.contraction((M, N))
    C[i, j] += A[i, k] * B[k, j]
    b.output("C", C)
    out = plaidml.run(b.build(), {"A": np.ones((2, 3), np.float32),
                                  "B": np.ones((3, 4), np.float32)})
    print(out["C"])

libplaidml is found through PLAIDML_LIBRARY, next to the package, or the system's library path.
The guide is docs/python.md.
"""
from .errors import (PlaidMLError, InvalidArgumentError, ParseError, TypeMismatchError,
                     NotFoundError, UnsupportedError, OutOfMemoryError, DeviceError,
                     InternalError, PlaidMLIOError, LibraryNotFoundError)
from .core import Context, Device, Program, devices, default_context, run, version
from .edsl import (Builder, Tensor, IntExpr, Contraction, Constraint, cond, expr_max, expr_min,
                   call_function)
from . import op
from .op import names as op_names, has as has_op

_UNARY = ("exp log sqrt tanh sin cos tan sinh cosh asin acos atan asinh acosh atanh erf floor "
          "ceil round round_even abs sign neg recip relu sigmoid bit_not as_bool bitcast isnan "
          "isinf").split()
_BINARY = "pow max min".split()


def _unary(name):
    def fn(x):
        return call_function(name, x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Elementwise Tile function %s(x)." % name
    return fn


def _binary(name):
    def fn(x, y):
        return call_function(name, x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Elementwise Tile function %s(x, y) (numpy broadcasting)." % name
    return fn


for _n in _UNARY:
    globals()[_n] = _unary(_n)
for _n in _BINARY:
    globals()[_n] = _binary(_n)
del _n


def select(c, a, b):
    """Elementwise c ? a : b."""
    return call_function("select", c, a, b)


def as_float(x, bits=32):
    """Cast to float16/32/64."""
    return call_function("as_float", x, int_args=(bits,))


def as_int(x, bits=32):
    """Cast to int8/16/32/64."""
    return call_function("as_int", x, int_args=(bits,))


def as_uint(x, bits=32):
    """Cast to uint8/16/32/64."""
    return call_function("as_uint", x, int_args=(bits,))


def as_bfloat(x):
    """Cast to bfloat16 (outputs come back to numpy as float32)."""
    return call_function("as_bfloat", x, int_args=(16,))


def reshape(x, *dims):
    """Tile reshape(X, d...): the same elements in new dims (ints or IntExprs)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    return call_function("reshape", x, int_args=dims)


def index(x, axis):
    """An int32 tensor of x's shape holding each element's coordinate along axis."""
    return call_function("index", x, int_args=(axis,))


def shape(x):
    """Tile shape(X): X's dims as an int32 vector."""
    return call_function("shape", x)


def gather(v, i):
    """Tile gather(V, I): V's rows (axis 0) at indices I (clamped into range)."""
    return call_function("gather", v, i)


def scatter(e, i, v):
    """Tile scatter(E, I, V): E's rows added at indices I into a tensor shaped like V."""
    return call_function("scatter", e, i, v)


__version__ = "0.1.0"

# `from plaidml import *` leaves out the functions named like Python built-ins (abs, max, min,
# pow, round): use them as plaidml.max(...).
__all__ = sorted(n for n in globals() if not n.startswith("_") and n not in
                 ("abs", "max", "min", "pow", "round", "errors", "core", "edsl"))
