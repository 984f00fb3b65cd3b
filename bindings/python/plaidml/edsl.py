"""The builder EDSL: programs written as Python, in the style of PlaidML's Python EDSL.

    b = plaidml.Builder("matmul")
    A = b.input("A", ("M", "K"))
    B = b.input("B", ("K", "N"))
    M, N = b.dims("M", "N")
    i, j, k = b.indices("i j k")
    C = b.contraction((M, N))
    C[i, j] += A[i, k] * B[k, j]          # sum;  *= product;  = assign
    R = plaidml.relu(C + 1.0)             # elementwise, numpy broadcasting
    b.output("R", R)
    program = b.build()

Max and min aggregations are written as comparisons (an expression statement, as in PlaidML):
`C[i] >= X[i, j]` (max) and `C[i] <= X[i, j]` (min); the methods `C[i].max(...)`,
`.min(...)`, `.sum(...)`, `.prod(...)`, `.assign(...)` do the same by name.
See docs/python.md for the whole guide.
"""
import ctypes
import numbers

import numpy as np

from . import _ffi
from ._ffi import call, encode
from .core import Program, dtype_code

_AGG = {"sum": 1, "prod": 2, "max": 3, "min": 4, "assign": 5}
_COMB = {"none": 1, "mul": 2, "add": 3, "eq": 4, "cond": 5}
_EXPR_ADD, _EXPR_SUB, _EXPR_MUL, _EXPR_DIV, _EXPR_MAX, _EXPR_MIN, _EXPR_FLOORDIV = range(1, 8)


class Builder:
    """Builds one program, one statement per call. Use it from one thread at a time."""

    def __init__(self, name=None):
        handle = ctypes.c_void_p()
        call("plaidml_builder_create", encode(name) if name else None, ctypes.byref(handle))
        self._handle = handle
        self._outputs = 0

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _ffi._lib is not None:
            _ffi.raw("plaidml_builder_destroy")(handle)
            self._handle = None

    # --- inputs, constants, outputs -----------------------------------------------------------

    def input(self, name, dims, dtype=None):
        """Declares input `name`. dims: a sequence of dim names (None: unnamed; an int: that fixed
        size), an int (that many unnamed dims), () for a scalar, or None for any rank. dtype: None (any), a numpy
        dtype or a name ("float32", "f32")."""
        if dims is None:
            rank, names = _ffi.RANK_UNKNOWN, None
        else:
            if isinstance(dims, int):
                dims = [None] * dims
            elif isinstance(dims, str):
                dims = dims.replace(",", " ").split()
            dims = list(dims)
            rank = len(dims)
            # An int is a fixed size ("224"): the buffer must have exactly that size there.
            names = (ctypes.c_char_p * max(rank, 1))(
                *[encode(str(d)) if isinstance(d, int) else (encode(d) if d else None)
                  for d in dims])
        out = _ffi.Value()
        call("plaidml_builder_add_input", self._handle, encode(name), rank, names,
             dtype_code(dtype), ctypes.byref(out))
        return Tensor(self, out)

    def constant(self, value, name=None):
        """A constant tensor. A Python number is a scalar that takes the dtype of what it meets;
        a numpy array (or anything np.asarray takes, other than a number) is a constant of its
        own dtype and shape, copied into the program: a weight, uploaded to a device once and
        resident for later runs."""
        if isinstance(value, numbers.Number) and not isinstance(value, np.generic):
            return Tensor(self, self._value_of(value))
        array = np.ascontiguousarray(value)
        dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        out = _ffi.Value()
        call("plaidml_builder_add_constant", self._handle, encode(name) if name else None,
             dtype_code(array.dtype), array.ndim, dims, array.ctypes.data_as(ctypes.c_void_p),
             array.nbytes, None, None, ctypes.byref(out))
        return Tensor(self, out)

    def output(self, name, tensor):
        """Names tensor and makes it the next program output."""
        call("plaidml_builder_add_output", self._handle, encode(name), self._value_of(tensor))
        self._outputs += 1

    def build(self):
        """The program built so far (the builder stays usable)."""
        out = ctypes.c_void_p()
        call("plaidml_builder_build", self._handle, ctypes.byref(out))
        return Program(out)

    # --- integer expressions -------------------------------------------------------------------

    def dim(self, name):
        """The size of dimension `name` (declared by an input) as an IntExpr."""
        return self._expr("plaidml_expr_dim", name)

    # plaidml_assert_op of plaidml.h, by the spelling Builder.require takes.
    _ASSERT_OPS = {"==": 1, ">=": 2, "broadcast": 3, "multiple": 4}

    def require(self, lhs, op, rhs, message, *args):
        """Requires `lhs op rhs` of sizes whenever the program runs (Tile `assert`): op is "==",
        ">=", "broadcast" (equal, or either is 1) or "multiple" (lhs a multiple of rhs). Running
        at shapes that break it raises TypeMismatchError with `message`, in which {k} is the
        size args[k] takes; a condition the sizes decide already raises here or is dropped."""
        if op not in self._ASSERT_OPS:
            raise ValueError("op must be one of %s, not %r" % (sorted(self._ASSERT_OPS), op))
        exprs = (_ffi.Expr * max(len(args), 1))(*[self._expr_of(a) for a in args])
        call("plaidml_builder_add_assertion", self._handle, self._ASSERT_OPS[op],
             self._expr_of(lhs), self._expr_of(rhs), encode(message), len(args), exprs)

    def dims(self, *names):
        """Several dims: b.dims("M", "N") or b.dims("M N")."""
        return tuple(self.dim(n) for n in _split(names))

    def index(self, name):
        """The index variable `name`: a lowercase letter, then letters, digits and _."""
        return self._expr("plaidml_expr_index", name)

    def indices(self, *names):
        """Several index variables: b.indices("i j k") or b.indices("i", "j", "k")."""
        return tuple(self.index(n) for n in _split(names))

    def _expr(self, fn, name):
        out = _ffi.Expr()
        call(fn, self._handle, encode(name), ctypes.byref(out))
        return IntExpr(self, out)

    # --- elementwise calls, ops, contractions --------------------------------------------------

    def call(self, function, *operands, int_args=()):
        """Applies a Tile elementwise function or operator by name (see docs/tile.md section 3)."""
        values = (_ffi.Value * max(len(operands), 1))(*[self._value_of(o) for o in operands])
        exprs = (_ffi.Expr * max(len(int_args), 1))(*[self._expr_of(e) for e in int_args])
        out = _ffi.Value()
        call("plaidml_builder_call", self._handle, encode(function), len(operands), values,
             len(int_args), exprs, ctypes.byref(out))
        return Tensor(self, out)

    def op(self, name, *operands, **attrs):
        """Applies op `name` of the op library (docs/ops.md) to operands with attributes.

        Attribute types follow the Python values: int or bool -> int, float -> float, str ->
        string, a sequence of ints -> list of ints. An attribute given as None is left out."""
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])  # op("concatenate", [a, b, c], axis=0)
        values = (_ffi.Value * max(len(operands), 1))(*[self._value_of(o) for o in operands])
        handle = _make_attrs(name, attrs)
        try:
            out = _ffi.Value()
            call("plaidml_builder_op", self._handle, encode(name), len(operands), values,
                 handle, ctypes.byref(out))
        finally:
            _ffi.raw("plaidml_attrs_destroy")(handle)
        return Tensor(self, out)

    def contraction(self, sizes, default=None):
        """A contraction output of these sizes (ints or IntExprs), defined by assigning to it:
        C[i, j] += A[i, k] * B[k, j]. default: a tensor or number the output starts from."""
        return Contraction(self, sizes, default)

    # --- conversions ---------------------------------------------------------------------------

    def _value_of(self, x):
        if isinstance(x, Tensor):
            if x._builder is not self:
                raise ValueError("a tensor of another Builder was used")
            return x._get_value()
        out = _ffi.Value()
        if isinstance(x, IntExpr):
            call("plaidml_builder_dim_constant", self._handle, x._expr, ctypes.byref(out))
        elif isinstance(x, (bool, numbers.Integral)):
            call("plaidml_builder_int_constant", self._handle, int(x), ctypes.byref(out))
        elif isinstance(x, numbers.Real):
            call("plaidml_builder_float_constant", self._handle, float(x), ctypes.byref(out))
        else:
            raise TypeError("expected a plaidml Tensor, an IntExpr or a number, got %r" % (x,))
        return out

    def _expr_of(self, x):
        if isinstance(x, IntExpr):
            if x._builder is not self:
                raise ValueError("an expression of another Builder was used")
            return x._expr
        if isinstance(x, (bool, numbers.Integral)):
            out = _ffi.Expr()
            call("plaidml_expr_int", self._handle, int(x), ctypes.byref(out))
            return out
        raise TypeError("expected an IntExpr (index, dim) or an int, got %r" % (x,))


def _split(names):
    result = []
    for n in names:
        result.extend(n.replace(",", " ").split() if isinstance(n, str) else [n])
    return result


def _make_attrs(op_name, attrs):
    handle = ctypes.c_void_p()
    call("plaidml_attrs_create", ctypes.byref(handle))
    try:
        for key, v in attrs.items():
            _set_attr(handle, op_name, key, v)
    except BaseException:
        _ffi.raw("plaidml_attrs_destroy")(handle)
        raise
    return handle


def _set_attr(handle, op_name, key, v):
    k = encode(key)
    if v is None:
        return
    if isinstance(v, (bool, numbers.Integral)):
        call("plaidml_attrs_set_int", handle, k, int(v))
    elif isinstance(v, numbers.Real):
        call("plaidml_attrs_set_float", handle, k, float(v))
    elif isinstance(v, str):
        call("plaidml_attrs_set_string", handle, k, encode(v))
    elif hasattr(v, "__len__") and all(isinstance(x, (bool, numbers.Integral)) for x in v):
        arr = (ctypes.c_int64 * max(len(v), 1))(*[int(x) for x in v])
        call("plaidml_attrs_set_ints", handle, k, len(v), arr)
    else:
        raise TypeError("%s: attribute %s=%r is not an int, float, string or list of ints"
                        % (op_name, key, v))


class IntExpr:
    """An integer expression: an index variable, a dim, or + - * / // of those and ints.

    In index expressions `/` is exact rational division (points where it is not an integer
    are skipped) and `//` floor division (of index-free operands); in sizes both are integer
    divisions (`/` truncating). `i - k < N` makes a Constraint for Contraction.add_constraint.
    """

    def __init__(self, builder, expr):
        self._builder = builder
        self._expr = expr

    def _binary(self, op, lhs, rhs):
        b = self._builder
        out = _ffi.Expr()
        call("plaidml_expr_binary", b._handle, op, b._expr_of(lhs), b._expr_of(rhs),
             ctypes.byref(out))
        return IntExpr(b, out)

    def __add__(self, o): return self._binary(_EXPR_ADD, self, o)
    def __radd__(self, o): return self._binary(_EXPR_ADD, o, self)
    def __sub__(self, o): return self._binary(_EXPR_SUB, self, o)
    def __rsub__(self, o): return self._binary(_EXPR_SUB, o, self)
    def __mul__(self, o): return self._binary(_EXPR_MUL, self, o)
    def __rmul__(self, o): return self._binary(_EXPR_MUL, o, self)
    def __truediv__(self, o): return self._binary(_EXPR_DIV, self, o)
    def __rtruediv__(self, o): return self._binary(_EXPR_DIV, o, self)
    def __floordiv__(self, o): return self._binary(_EXPR_FLOORDIV, self, o)
    def __rfloordiv__(self, o): return self._binary(_EXPR_FLOORDIV, o, self)
    def __pos__(self): return self

    def __neg__(self):
        out = _ffi.Expr()
        call("plaidml_expr_neg", self._builder._handle, self._expr, ctypes.byref(out))
        return IntExpr(self._builder, out)

    def __lt__(self, bound):
        return Constraint(self, bound)

    def __bool__(self):
        raise TypeError("an IntExpr has no truth value (it is symbolic)")


def expr_max(a, b):
    """max(a, b) of integer expressions (in index expressions: over dims and ints only)."""
    x = a if isinstance(a, IntExpr) else b
    return x._binary(_EXPR_MAX, a, b)


def expr_min(a, b):
    """min(a, b) of integer expressions (in index expressions: over dims and ints only)."""
    x = a if isinstance(a, IntExpr) else b
    return x._binary(_EXPR_MIN, a, b)


class Constraint:
    """0 <= poly < bound, made by `poly < bound` on an IntExpr."""

    def __init__(self, poly, bound):
        self.poly, self.bound = poly, bound

    def __bool__(self):
        raise TypeError("a Constraint has no truth value: pass it to add_constraint")


def _binop(name, swap=False):
    def method(self, other):
        a, b = (other, self) if swap else (self, other)
        return self._builder.call(name, a, b)
    return method


class Tensor:
    """A tensor value inside a Builder. Elementwise operators broadcast as numpy does:
    + - * / % unary -, < > <= >= (bool results), & | ^ ~ << >> on integers; equality is
    t.eq(u) / t.ne(u) (== stays Python identity). t[i, j] is an access for contractions."""

    def __init__(self, builder, value):
        self._builder = builder
        self._value = value

    def _get_value(self):
        return self._value

    __add__, __radd__ = _binop("add"), _binop("add", True)
    __sub__, __rsub__ = _binop("sub"), _binop("sub", True)
    __mul__, __rmul__ = _binop("mul"), _binop("mul", True)
    __truediv__, __rtruediv__ = _binop("div"), _binop("div", True)
    __mod__, __rmod__ = _binop("mod"), _binop("mod", True)
    __and__, __rand__ = _binop("bit_and"), _binop("bit_and", True)
    __or__, __ror__ = _binop("bit_or"), _binop("bit_or", True)
    __xor__, __rxor__ = _binop("bit_xor"), _binop("bit_xor", True)
    __lshift__, __rlshift__ = _binop("bit_left"), _binop("bit_left", True)
    __rshift__, __rrshift__ = _binop("bit_right"), _binop("bit_right", True)
    __lt__, __gt__ = _binop("cmp_lt"), _binop("cmp_gt")
    __le__, __ge__ = _binop("cmp_le"), _binop("cmp_ge")
    eq, ne = _binop("cmp_eq"), _binop("cmp_ne")
    lt, gt, le, ge = __lt__, __gt__, __le__, __ge__
    __hash__ = object.__hash__

    def __repr__(self):
        v = self._value
        return "<plaidml.%s %s>" % (type(self).__name__,
                                    "undefined" if v is None else "value %d" % v.id)

    def __neg__(self): return self._builder.call("neg", self)
    def __invert__(self): return self._builder.call("bit_not", self)
    def __abs__(self): return self._builder.call("abs", self)
    def __pos__(self): return self

    def __bool__(self):
        raise TypeError("a plaidml Tensor has no truth value (it is symbolic); "
                        "use plaidml.select(cond, a, b)")

    @property
    def rank(self):
        out = ctypes.c_size_t()
        call("plaidml_builder_value_rank", self._builder._handle, self._get_value(),
             ctypes.byref(out))
        return out.value

    @property
    def shape(self):
        """The dims as IntExprs over the inputs' dims (usable as contraction sizes)."""
        dims = []
        for axis in range(self.rank):
            out = _ffi.Expr()
            call("plaidml_builder_value_dim", self._builder._handle, self._get_value(), axis,
                 ctypes.byref(out))
            dims.append(IntExpr(self._builder, out))
        return tuple(dims)

    def __getitem__(self, key):
        return Access(self, key)

    def __setitem__(self, key, rhs):
        raise TypeError("only the result of Builder.contraction(...) can be assigned to")


class Access:
    """tensor[indices]: a contraction input, or the output when the tensor is a Contraction.

    Inputs combine with * (the default), + and .eq(); plaidml.cond(a, b, c) is (a == b) ? c.
    On an output: += sum, *= product, >= max, <= min; or the methods of the same names."""

    def __init__(self, tensor, key):
        self.tensor = tensor
        self.indices = key if isinstance(key, tuple) else (key,)

    def __mul__(self, other): return _Combination("mul", self, other)
    def __add__(self, other): return _Combination("add", self, other)
    def eq(self, other): return _Combination("eq", self, other)
    __hash__ = object.__hash__

    def _output(self):
        if not isinstance(self.tensor, Contraction):
            raise TypeError("only the result of Builder.contraction(...) can be aggregated into")
        return self.tensor

    def __iadd__(self, rhs): self._output(); return _Aggregate("sum", rhs)
    def __imul__(self, rhs): self._output(); return _Aggregate("prod", rhs)
    def __ge__(self, rhs): return self.max(rhs)
    def __le__(self, rhs): return self.min(rhs)

    def sum(self, rhs): return self._output()._define(self.indices, "sum", rhs)
    def prod(self, rhs): return self._output()._define(self.indices, "prod", rhs)
    def max(self, rhs): return self._output()._define(self.indices, "max", rhs)
    def min(self, rhs): return self._output()._define(self.indices, "min", rhs)
    def assign(self, rhs): return self._output()._define(self.indices, "assign", rhs)


class _Combination:
    def __init__(self, comb, *accesses):
        for a in accesses:
            if not isinstance(a, Access):
                raise TypeError("a contraction combines tensor accesses (X[i, j]), got %r" % (a,))
        self.comb, self.accesses = comb, accesses


def cond(a, b, c):
    """The contraction combination (a == b) ? c : 0 of three accesses."""
    return _Combination("cond", a, b, c)


class _Aggregate:
    def __init__(self, agg, rhs):
        self.agg, self.rhs = agg, rhs


class Contraction(Tensor):
    """The output of a contraction, undefined until assigned (see Access)."""

    def __init__(self, builder, sizes, default=None):
        super().__init__(builder, None)
        self._sizes = tuple(sizes)
        self._default = default
        self._constraints = []

    def _get_value(self):
        if self._value is None:
            raise ValueError("a contraction is used before it is defined: assign it first, "
                             "e.g. C[i, j] += A[i, k] * B[k, j]")
        return self._value

    def add_constraint(self, poly, bound=None):
        """Adds 0 <= poly < bound: add_constraint(i - k, N) or add_constraint(i - k < N).
        Must come before the assignment."""
        if isinstance(poly, Constraint):
            poly, bound = poly.poly, poly.bound
        if bound is None:
            raise TypeError("add_constraint needs a bound: add_constraint(i - k, N)")
        self._constraints.append((poly, bound))
        return self

    def set_default(self, value):
        """The output starts as value (broadcast) instead of the aggregation's identity."""
        self._default = value
        return self

    def __setitem__(self, key, rhs):
        if isinstance(rhs, _Aggregate):  # C[i] += ... / C[i] *= ... (Python's augmented assign)
            self._define(key if isinstance(key, tuple) else (key,), rhs.agg, rhs.rhs)
        else:
            self._define(key if isinstance(key, tuple) else (key,), "assign", rhs)

    def _define(self, indices, agg, rhs):
        if self._value is not None:
            raise ValueError("this contraction is already defined (each tensor is assigned "
                             "once); make a new Builder.contraction")
        b = self._builder
        if isinstance(rhs, Access):
            rhs = _Combination("none", rhs)
        if not isinstance(rhs, _Combination):
            raise TypeError("the right side of a contraction is an access X[i, j] or a "
                            "combination of accesses, got %r" % (rhs,))
        if len(indices) != len(self._sizes):
            raise ValueError("the output access has %d indices for %d sizes"
                             % (len(indices), len(self._sizes)))
        handle = ctypes.c_void_p()
        call("plaidml_contraction_create", b._handle, _AGG[agg], _COMB[rhs.comb],
             ctypes.byref(handle))
        try:
            call("plaidml_contraction_set_output", handle, len(indices),
                 _exprs(b, indices), _exprs(b, self._sizes))
            for a in rhs.accesses:
                call("plaidml_contraction_add_input", handle, b._value_of(a.tensor),
                     len(a.indices), _exprs(b, a.indices))
            for poly, bound in self._constraints:
                call("plaidml_contraction_add_constraint", handle, b._expr_of(poly),
                     b._expr_of(bound))
            if self._default is not None:
                call("plaidml_contraction_set_default", handle, b._value_of(self._default))
            out = _ffi.Value()
            call("plaidml_builder_add_contraction", b._handle, handle, ctypes.byref(out))
        finally:
            _ffi.raw("plaidml_contraction_destroy")(handle)
        self._value = out
        return self


def _exprs(builder, items):
    return (_ffi.Expr * max(len(items), 1))(*[builder._expr_of(x) for x in items])


def _builder_of(args):
    for a in args:
        if isinstance(a, Tensor):
            return a._builder
        if isinstance(a, (list, tuple)):
            found = _builder_of(a)
            if found is not None:
                return found
    return None


def call_function(name, *operands, int_args=()):
    """Applies Tile function `name` to tensors (their builder is taken from the operands)."""
    b = _builder_of(operands)
    if b is None:
        raise TypeError("%s: at least one operand must be a plaidml Tensor" % name)
    return b.call(name, *operands, int_args=int_args)
