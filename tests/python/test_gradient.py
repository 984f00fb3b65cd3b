"""Program.gradient (plaidml_program_gradient) from Python, checked against hand derivatives and
finite differences."""
import unittest

import numpy as np

import plaidml


class GradientTest(unittest.TestCase):
    def test_dot_product(self):
        p = plaidml.Program.from_tile(
            "function (X[N], W[N]) -> (L) { L[] = +(X[i] * W[i]); }")
        g = p.gradient("L", ["W", "X"])
        self.assertEqual(g.outputs, ["L", "W_grad", "X_grad"])
        x, w = np.array([1., 2., 3.], np.float32), np.array([4., -5., 6.], np.float32)
        out = plaidml.run(g, {"X": x, "W": w})
        np.testing.assert_allclose(out["L"], x @ w)
        np.testing.assert_allclose(out["W_grad"], x)
        np.testing.assert_allclose(out["X_grad"], w)

    def test_grad_names_and_unused_input(self):
        p = plaidml.Program.from_tile(
            "function (X[N], Z[N]) -> (L) { L[] = +(X[i] * X[i]); }")
        g = p.gradient("L", ["X", "Z"], grad_names=["dX", "dZ"])
        self.assertEqual(g.outputs, ["L", "dX", "dZ"])
        x = np.array([1., -2.], np.float64)
        out = plaidml.run(g, {"X": x, "Z": x})
        np.testing.assert_allclose(out["dX"], 2 * x)
        np.testing.assert_array_equal(out["dZ"], [0, 0])

    def test_builder_mlp_against_finite_differences(self):
        b = plaidml.Builder()
        X = b.input("X", ("B", "I"), dtype="float64")
        W = b.input("W", ("I", "O"), dtype="float64")
        Bi, O = b.dims("B O")
        i, j, k = b.indices("i j k")
        H = b.contraction((Bi, O))
        H[i, j] += X[i, k] * W[k, j]
        T = plaidml.tanh(H) * plaidml.exp(H * 0.5)
        L = b.contraction(())
        L[()] += T[i, j]
        b.output("L", L)
        g = b.build().gradient("L", ["W"])
        rng = np.random.default_rng(3)
        x, w = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
        got = plaidml.run(g, {"X": x, "W": w})["W_grad"]
        f = lambda w_: float(np.sum(np.tanh(x @ w_) * np.exp(0.5 * (x @ w_))))  # noqa: E731
        num = np.zeros_like(w)
        for idx in np.ndindex(*w.shape):
            d = np.zeros_like(w)
            d[idx] = 1e-6
            num[idx] = (f(w + d) - f(w - d)) / 2e-6
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)

    def test_max_routes_to_all_ties(self):
        p = plaidml.Program.from_tile("function (X[N]) -> (L) { L[] = >(X[i]); }")
        out = plaidml.run(p.gradient("L", "X"), {"X": np.array([1., 3., 3., 0.])})
        np.testing.assert_array_equal(out["X_grad"], [0, 1, 1, 0])

    def test_errors(self):
        p = plaidml.Program.from_tile("function (X[N]) -> (L, V) { L[] = +(X[i]); V = X; }")
        with self.assertRaises(plaidml.NotFoundError):
            p.gradient("Nope", ["X"])
        with self.assertRaises(plaidml.NotFoundError):
            p.gradient("L", ["Nope"])
        with self.assertRaises(plaidml.TypeMismatchError):
            p.gradient("V", ["X"])  # not a scalar
        with self.assertRaises(plaidml.InvalidArgumentError):
            p.gradient("L", ["X", "X"])


class GradientApiTest(unittest.TestCase):
    def test_grad_names_count_is_checked_in_python(self):
        p = plaidml.Program.from_tile("function (X[N]) -> (L) { L[] = +(X[i]); }")
        with self.assertRaises(ValueError):
            p.gradient("L", ["X"], grad_names=["a", "b"])


if __name__ == "__main__":
    unittest.main()
