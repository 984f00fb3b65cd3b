"""The builder EDSL: contractions, elementwise code, integer expressions, checked vs numpy."""
import os
import unittest

import numpy as np

import plaidml


def run1(b, name, value, inputs):
    b.output(name, value)
    return plaidml.run(b.build(), inputs)[name]


class ContractionTest(unittest.TestCase):
    def test_matmul(self):
        b = plaidml.Builder("matmul")
        A = b.input("A", ("M", "K"), dtype="float32")
        B = b.input("B", ("K", "N"))
        M, N = b.dims("M", "N")
        i, j, k = b.indices("i j k")
        C = b.contraction((M, N))
        C[i, j] += A[i, k] * B[k, j]
        b.output("C", C)
        program = b.build()
        rng = np.random.default_rng(1)
        for m, kk, n in ((1, 1, 1), (3, 7, 5), (8, 4, 1)):  # one program, many shapes
            a = rng.standard_normal((m, kk)).astype(np.float32)
            bb = rng.standard_normal((kk, n)).astype(np.float32)
            out = plaidml.run(program, {"A": a, "B": bb})["C"]
            np.testing.assert_allclose(out, a @ bb, rtol=1e-5, atol=1e-5)

    def test_shape_gives_contraction_sizes(self):
        b = plaidml.Builder()
        A = b.input("A", (None, "K"))  # an unnamed dim: A_D0
        B = b.input("B", ("K", None))
        self.assertEqual(A.rank, 2)
        M, _ = A.shape
        _, N = B.shape
        i, j, k = b.indices("i j k")
        C = b.contraction((M, N))
        C[i, j] += A[i, k] * B[k, j]
        a, bb = np.ones((2, 3), np.float32), np.full((3, 4), 2, np.float32)
        np.testing.assert_array_equal(run1(b, "C", C, {"A": a, "B": bb}), a @ bb)

    def test_max_min_prod_assign(self):
        x = np.array([[3, -1, 7], [2, 9, -4]], np.int32)
        for agg, ref in (("max", x.max(1)), ("min", x.min(1)), ("prod", x.prod(1))):
            with self.subTest(agg=agg):
                b = plaidml.Builder()
                X = b.input("X", ("N", "K"))
                (N,) = b.dims("N")
                i, k = b.indices("i k")
                R = b.contraction((N,))
                if agg == "max":
                    R[i] >= X[i, k]  # noqa: B015 (an aggregation, as in PlaidML's EDSL)
                elif agg == "min":
                    R[i] <= X[i, k]  # noqa: B015
                else:
                    R[i] *= X[i, k]
                np.testing.assert_array_equal(run1(b, "R", R, {"X": x}), ref)
        b = plaidml.Builder()
        X = b.input("X", ("N", "K"))
        N, K = b.dims("N K")
        i, j = b.indices("i j")
        T = b.contraction((K, N))
        T[j, i] = X[i, j]  # assign: a transpose
        np.testing.assert_array_equal(run1(b, "T", T, {"X": x}), x.T)

    def test_methods_name_the_aggregation(self):
        b = plaidml.Builder()
        X = b.input("X", ("N",))
        i = b.index("i")
        S = b.contraction(())
        S[()].sum(X[i] * X[i])
        self.assertEqual(run1(b, "S", S, {"X": np.array([1., 2., 3.])}), 14.0)

    def test_constraint_cumsum_and_default(self):
        b = plaidml.Builder()
        X = b.input("X", ("N",))
        (N,) = b.dims("N")
        i, k = b.indices("i k")
        S = b.contraction((N,), default=b.constant(100))
        S.add_constraint(i - k < N)
        S[i] += X[k]
        x = np.array([1, 2, 3, 4], np.int64)
        np.testing.assert_array_equal(run1(b, "S", S, {"X": x}), 100 + np.cumsum(x))

    def test_add_constraint_two_argument_form(self):
        b = plaidml.Builder()
        X = b.input("X", ("N",))
        (N,) = b.dims("N")
        i, k = b.indices("i k")
        S = b.contraction((N,))
        S.add_constraint(i - k, N)
        S[i] += X[k]
        x = np.array([5, 1, 2], np.int32)
        np.testing.assert_array_equal(run1(b, "S", S, {"X": x}), np.cumsum(x))

    def test_rational_index_division(self):
        # docs/tile.md: O[i : 5] = +(I[(i - j + 1)/2] * K[j]) with I = K = [1,2,3] is [2,5,4,9,6].
        b = plaidml.Builder()
        I_ = b.input("I", ("N",))
        K = b.input("K", ("N",))
        i, j = b.indices("i j")
        O = b.contraction((5,))
        O[i] += I_[(i - j + 1) / 2] * K[j]
        v = np.array([1, 2, 3], np.float32)
        np.testing.assert_array_equal(run1(b, "O", O, {"I": v, "K": v}), [2, 5, 4, 9, 6])

    def test_floor_division_in_sizes_and_indices(self):
        # Centre crop: O[i : N - 2] = X[i + (N - (N-2)) // 2]  with floordiv of dims.
        b = plaidml.Builder()
        X = b.input("X", ("N",))
        (N,) = b.dims("N")
        i = b.index("i")
        O = b.contraction(((N + 1) // 2,))
        O[i] = X[i + (N - (N + 1) // 2) // 2]
        x = np.arange(7, dtype=np.int32)  # out size 4, offset (7 - 4) // 2 = 1
        np.testing.assert_array_equal(run1(b, "O", O, {"X": x}), [1, 2, 3, 4])

    def test_add_comb_eq_and_cond(self):
        b = plaidml.Builder()
        X = b.input("X", ("N", "K"))
        N, K = b.dims("N K")
        i, j = b.indices("i j")
        Mx = b.contraction((N,))
        Mx[i] >= X[i, j]  # noqa: B015
        Idx = plaidml.index(X, 1)
        Arg = b.contraction((N,))
        Arg[i] >= plaidml.cond(X[i, j], Mx[i], Idx[i, j])  # argmax (last on ties)
        Sum = b.contraction((N, K))
        Sum[i, j] += X[i, j] + Mx[i]
        Eq = b.contraction((N, K))
        Eq[i, j] = X[i, j].eq(Mx[i])
        b.output("Arg", Arg)
        b.output("Sum", Sum)
        b.output("Eq", Eq)
        x = np.array([[1, 5, 2], [7, 0, 7]], np.int32)
        out = plaidml.run(b.build(), {"X": x})
        np.testing.assert_array_equal(out["Arg"], [1, 2])
        np.testing.assert_array_equal(out["Sum"], x + x.max(1, keepdims=True))
        self.assertEqual(out["Eq"].dtype, np.bool_)
        np.testing.assert_array_equal(out["Eq"], x == x.max(1, keepdims=True))


class ElementwiseTest(unittest.TestCase):
    def test_arithmetic_broadcasting_and_functions(self):
        b = plaidml.Builder()
        X = b.input("X", ("N", "C"), dtype=np.float32)
        Y = b.input("Y", ("C",), dtype=np.float32)
        exprs = {
            "add": X + Y, "sub": 1.0 - X, "mul": X * 2, "div": X / Y, "neg": -X,
            "exp": plaidml.exp(X), "tanh": plaidml.tanh(X), "sqrt": plaidml.sqrt(Y),
            "pow": plaidml.pow(Y, 2.0), "relu": plaidml.relu(X), "sig": plaidml.sigmoid(X),
            "max": plaidml.max(X, Y), "sel": plaidml.select(X > Y, X, Y), "abs": abs(X),
        }
        for name, value in exprs.items():
            b.output(name.upper(), value)
        x = np.array([[-1.5, 0.0, 2.0], [3.0, -0.25, 1.0]], np.float32)
        y = np.array([1.0, 2.0, 4.0], np.float32)
        out = plaidml.run(b.build(), {"X": x, "Y": y})
        ref = {
            "add": x + y, "sub": 1 - x, "mul": x * 2, "div": x / y, "neg": -x, "exp": np.exp(x),
            "tanh": np.tanh(x), "sqrt": np.sqrt(y), "pow": y ** 2, "relu": np.maximum(x, 0),
            "sig": 1 / (1 + np.exp(-x)), "max": np.maximum(x, y), "sel": np.where(x > y, x, y),
            "abs": np.abs(x),
        }
        for name, r in ref.items():
            with self.subTest(name=name):
                self.assertEqual(out[name.upper()].dtype, np.float32)
                np.testing.assert_allclose(out[name.upper()], r, rtol=1e-5, atol=1e-6)

    def test_comparisons_and_integer_ops(self):
        b = plaidml.Builder()
        X = b.input("X", 1, dtype="int32")
        Y = b.input("Y", 1, dtype="int32")
        for name, v in (("LT", X < Y), ("GE", X >= Y), ("EQ", X.eq(Y)), ("NE", X.ne(Y)),
                        ("AND", X & Y), ("OR", X | 1), ("XOR", X ^ Y), ("SHL", X << 1),
                        ("MOD", X % 3), ("INV", ~X), ("DIV", X / 2)):
            b.output(name, v)
        x = np.array([4, -7, 9], np.int32)
        y = np.array([4, 3, 1], np.int32)
        out = plaidml.run(b.build(), {"X": x, "Y": y})
        np.testing.assert_array_equal(out["LT"], x < y)
        self.assertEqual(out["LT"].dtype, np.bool_)
        np.testing.assert_array_equal(out["GE"], x >= y)
        np.testing.assert_array_equal(out["EQ"], x == y)
        np.testing.assert_array_equal(out["NE"], x != y)
        np.testing.assert_array_equal(out["AND"], x & y)
        np.testing.assert_array_equal(out["OR"], x | 1)
        np.testing.assert_array_equal(out["XOR"], x ^ y)
        np.testing.assert_array_equal(out["SHL"], x << 1)
        np.testing.assert_array_equal(out["INV"], ~x)
        np.testing.assert_array_equal(out["DIV"], np.trunc(x / 2))  # C truncation

    def test_dims_as_values_casts_and_reshape(self):
        b = plaidml.Builder()
        X = b.input("X", ("N", "C"))
        N, C = b.dims("N C")
        mean = b.contraction((C,))
        i, c = b.indices("i c")
        mean[c] += X[i, c]
        b.output("Mean", mean / N)
        b.output("F", plaidml.as_float(X, 64))
        b.output("R", plaidml.reshape(X, C, N))
        b.output("Idx", plaidml.index(X, 0))
        x = np.arange(6, dtype=np.int32).reshape(3, 2)
        out = plaidml.run(b.build(), {"X": x})
        np.testing.assert_array_equal(out["Mean"], x.sum(0) // 3)
        self.assertEqual(out["F"].dtype, np.float64)
        np.testing.assert_array_equal(out["R"], x.reshape(2, 3))
        np.testing.assert_array_equal(out["Idx"], [[0, 0], [1, 1], [2, 2]])

    def test_print_of_a_built_program_parses_back(self):
        b = plaidml.Builder("p")
        X = b.input("X", ("N",))
        b.output("Y", plaidml.exp(X) * 2.0)
        text = b.build().print()
        self.assertEqual(plaidml.Program.from_tile(text).print(), text)


class BuilderErrorTest(unittest.TestCase):
    def test_unknown_function(self):
        b = plaidml.Builder()
        X = b.input("X", 1)
        with self.assertRaises(plaidml.NotFoundError) as cm:
            b.call("frobnicate", X)
        self.assertIn("frobnicate", cm.exception.message)

    def test_unknown_op(self):
        b = plaidml.Builder()
        X = b.input("X", 1)
        with self.assertRaises(plaidml.NotFoundError) as cm:
            b.op("no_such_op", X)
        self.assertIn("no_such_op", cm.exception.message)
        with self.assertRaises(AttributeError):
            plaidml.op.no_such_op

    def test_bad_attribute_type(self):
        b = plaidml.Builder()
        X = b.input("X", 1)
        with self.assertRaises(TypeError):
            b.op("relu", X, alpha=[0.5, 1.5])

    def test_attribute_values_of_every_python_type(self):
        attrs = dict(i=3, b=True, f=0.5, s="same_upper", t=(1, 2), l=[], n=np.int64(4),
                     a=np.array([2, 3]), skipped=None)
        handle = plaidml.edsl._make_attrs("op", attrs)  # each maps to a C setter: no error
        plaidml._ffi.raw("plaidml_attrs_destroy")(handle)
        with self.assertRaises(TypeError) as cm:
            plaidml.edsl._make_attrs("conv", dict(strides="x y".split()))
        self.assertIn("conv: attribute strides", str(cm.exception))

    def test_undefined_contraction_and_double_definition(self):
        b = plaidml.Builder()
        X = b.input("X", ("N",))
        (N,) = b.dims("N")
        i = b.index("i")
        C = b.contraction((N,))
        with self.assertRaises(ValueError):
            b.output("C", C)
        C[i] += X[i]
        with self.assertRaises(ValueError):
            C[i] += X[i]
        with self.assertRaises(TypeError):
            X[i] += X[i]

    def test_assign_with_an_index_missing_from_the_output(self):
        b = plaidml.Builder()
        X = b.input("X", ("N", "K"))
        (N,) = b.dims("N")
        i, k = b.indices("i k")
        C = b.contraction((N,))
        with self.assertRaises(plaidml.InvalidArgumentError) as cm:
            C[i] = X[i, k]
        self.assertIn("index k is not in the output of an assign contraction",
                      cm.exception.message)

    def test_no_outputs(self):
        with self.assertRaises(plaidml.InvalidArgumentError):
            plaidml.Builder().build()

    def test_builder_shape_mismatch_at_run(self):
        b = plaidml.Builder()
        X = b.input("X", ("N",))
        Y = b.input("Y", ("N",))
        b.output("Z", X + Y)
        with self.assertRaises(plaidml.TypeMismatchError) as cm:
            plaidml.run(b.build(), {"X": np.ones(2), "Y": np.ones(3)})
        self.assertIn("'N'", cm.exception.message)

    def test_require_checks_sizes_when_run(self):
        b = plaidml.Builder()
        X = b.input("X", ("N", "C"))
        N, C = b.dims("N", "C")
        b.require(C, "multiple", 4, "pack: {0} channels are not a multiple of 4", C)
        b.output("Y", X * 2)
        program = b.build()
        got = plaidml.run(program, {"X": np.ones((2, 8), np.float32)})["Y"]
        np.testing.assert_array_equal(got, np.full((2, 8), 2, np.float32))
        with self.assertRaises(plaidml.TypeMismatchError) as cm:
            plaidml.run(program, {"X": np.ones((2, 6), np.float32)})
        self.assertIn("pack: 6 channels are not a multiple of 4", cm.exception.message)
        with self.assertRaises(plaidml.TypeMismatchError) as cm:
            b2 = plaidml.Builder()
            b2.require(3, "==", 4, "three is not {0}", 4)
        self.assertIn("three is not 4", cm.exception.message)
        with self.assertRaises(ValueError):
            b.require(N, "<", C, "no such op")

    def test_mixing_builders(self):
        X = plaidml.Builder().input("X", 1)
        with self.assertRaises(ValueError):
            plaidml.Builder().output("Y", X)

    def test_symbolic_values_have_no_truth_value(self):
        b = plaidml.Builder()
        X = b.input("X", 1)
        with self.assertRaises(TypeError):
            bool(X < 1)
        with self.assertRaises(TypeError):
            bool(b.index("i"))


if __name__ == "__main__":
    unittest.main()


class ConstantTest(unittest.TestCase):
    """Array constants (weights): run against numpy, resident across runs, fixed dims."""

    def test_weights_are_constants_uploaded_once(self):
        rng = np.random.default_rng(7)
        w = rng.standard_normal((3, 4)).astype(np.float32)
        bias = np.arange(4, dtype=np.int32)
        b = plaidml.Builder("dense")
        X = b.input("X", ("N", 3), dtype="float32")
        W = b.constant(w, name="W")
        Bias = b.constant(bias)
        N = b.dim("N")
        i, j, k = b.indices("i j k")
        Y = b.contraction((N, 4))
        Y[i, j] += X[i, k] * W[k, j]
        b.output("Y", Y + plaidml.as_float(Bias, 32))
        program = b.build()
        self.assertEqual(program.inputs, ["X"])
        self.assertEqual(program.input_types(), {"X": (["N", 3], np.dtype(np.float32))})
        self.assertEqual(program.constants(), (2, w.nbytes + bias.nbytes))
        w_ref = w.copy()
        w[:] = 0  # the program holds its own copy
        ctx = plaidml.Context()
        for n in (2, 5, 2):
            x = rng.standard_normal((n, 3)).astype(np.float32)
            got = ctx.run(program, {"X": x})["Y"]
            np.testing.assert_allclose(got, x @ w_ref + bias, rtol=1e-5, atol=1e-5)
        self.assertEqual(ctx.stats()["constant_uploads"], 2)
        self.assertIn("W = constant(f32[3, 4], [%s, " % np.float32(w_ref[0, 0]), program.print())

    def test_a_saved_program_loads_back_and_computes_the_same(self):
        import tempfile
        rng = np.random.default_rng(9)
        w = rng.standard_normal((24, 5)).astype(np.float32)  # by digest in the text
        b = plaidml.Builder("saved")
        X = b.input("input:x", ("batch", 24), dtype="float32")
        W = b.constant(w, name="fc.weight")
        N = b.dim("batch")
        i, j, k = b.indices("i j k")
        Y = b.contraction((N, 5))
        Y[i, j] += X[i, k] * W[k, j]
        b.output("out/y", Y)
        program = b.build()
        x = rng.standard_normal((3, 24)).astype(np.float32)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "p.plaidml")
            program.save(path)
            back = plaidml.Program.load(path)
            with open(path, "rb") as f:  # a copy with the weight damaged: refused by its digest
                data = bytearray(f.read())
            data[-1] ^= 1
            damaged = os.path.join(folder, "damaged.plaidml")
            with open(damaged, "wb") as f:
                f.write(data)
            with self.assertRaisesRegex(plaidml.PlaidMLIOError, "does not match its digest"):
                plaidml.Program.load(damaged)
            with self.assertRaises(plaidml.NotFoundError):
                plaidml.Program.load(os.path.join(folder, "none"))
        self.assertEqual(back.print(), program.print())
        self.assertEqual(back.inputs, ["input:x"])
        self.assertEqual(back.outputs, ["out/y"])
        got = plaidml.run(back, {"input:x": x})["out/y"]
        np.testing.assert_allclose(got, x @ w, rtol=1e-5, atol=1e-5)

    def test_fixed_dim_is_checked(self):
        b = plaidml.Builder("fixed")
        X = b.input("X", ("N", 3), dtype="float32")
        b.output("Y", X * 2.0)
        program = b.build()
        with self.assertRaisesRegex(plaidml.PlaidMLError, "has size 3 at axis 1"):
            plaidml.run(program, {"X": np.zeros((2, 4), np.float32)})


class FunctionCoverageTest(unittest.TestCase):
    """Every elementwise function the library lists (plaidml_function_name) has a Python form:
    a function of the package, or an operator of Tensor."""

    OPERATORS = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__",
                 "mod": "__mod__", "neg": "__neg__", "cmp_eq": "__eq__", "cmp_ne": "__ne__",
                 "cmp_lt": "__lt__", "cmp_gt": "__gt__", "cmp_le": "__le__", "cmp_ge": "__ge__",
                 "bit_and": "__and__", "bit_or": "__or__", "bit_xor": "__xor__",
                 "bit_not": "__invert__", "bit_left": "__lshift__", "bit_right": "__rshift__"}
    # Reached through the op library's random ops (plaidml.op.random_*), not wrapped.
    NOT_WRAPPED = {"prng_step", "prng_state", "prng_value"}

    def test_every_function_is_wrapped(self):
        import ctypes
        from plaidml._ffi import call, decode
        count = ctypes.c_size_t()
        call("plaidml_function_count", ctypes.byref(count))
        self.assertGreater(count.value, 50)
        for i in range(count.value):
            out = ctypes.c_char_p()
            call("plaidml_function_name", i, ctypes.byref(out))
            name = decode(out.value)
            if name in self.NOT_WRAPPED:
                continue
            if name in self.OPERATORS:
                self.assertTrue(hasattr(plaidml.Tensor, self.OPERATORS[name]), name)
            else:
                self.assertTrue(callable(getattr(plaidml, name, None)),
                                "the Python package has no function %r" % name)

    def test_bitcast_matches_numpy_view(self):
        x = np.array([1.0, -2.5, 3.75, 0.0, -0.0, np.inf], np.float32)
        b = plaidml.Builder("bits")
        xt = b.input("X", ["N"])
        bits = run1(b, "B", plaidml.bitcast(xt), {"X": x})
        np.testing.assert_array_equal(bits, x.view(np.int32))
        b = plaidml.Builder("back")
        it = b.input("I", ["N"], dtype="i32")
        back = run1(b, "F", plaidml.bitcast(it), {"I": x.view(np.int32)})
        np.testing.assert_array_equal(back.view(np.int32), x.view(np.int32))

    def test_shape_function(self):
        b = plaidml.Builder("shape")
        x = b.input("X", ["A", "B"])
        out = run1(b, "S", plaidml.shape(x), {"X": np.zeros((2, 3), np.float32)})
        np.testing.assert_array_equal(out, np.array([2, 3], np.int32))
