"""The op library through Python (Builder.op / plaidml.op.*), checked against numpy.

Each test first checks that its ops are in the loaded library (plaidml.has_op): a library
without them fails the test rather than skipping it.
Expected values come from numpy or from plain loops written here, never from plaidml.
"""
import math
import unittest

import numpy as np

import plaidml


def needs(*ops):
    """Marks a test as using ops; a missing op fails it (never a silent skip)."""
    def wrap(test):
        def checked(self, *args, **kwargs):
            missing = [op for op in ops if not plaidml.has_op(op)]
            self.assertEqual(missing, [], "ops missing from the loaded library")
            return test(self, *args, **kwargs)
        checked.__name__, checked.__doc__ = test.__name__, test.__doc__
        return checked
    return wrap


def run_op(op, *arrays, **attrs):
    """Builds R = op(I0, I1, ...) with inputs of the arrays' ranks and runs it."""
    b = plaidml.Builder(op)
    ins = [b.input("I%d" % n, a.ndim) for n, a in enumerate(arrays)]
    b.output("R", b.op(op, *ins, **attrs))
    return plaidml.run(b.build(), {"I%d" % n: a for n, a in enumerate(arrays)})["R"]


RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(test, got, want, tol=1e-4):
    test.assertEqual(np.shape(got), np.shape(want))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def conv_ref(x, w, strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0)), groups=1):
    """NHWC input, HWIO kernel (I = C / groups): a direct loop."""
    x = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)))
    n, h, wd, c = x.shape
    kh, kw, ci, co = w.shape
    oh = (h - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, oh, ow, co), np.float64)
    cog = co // groups
    for o in range(co):
        g = o // cog
        for y in range(oh):
            for z in range(ow):
                for i in range(kh):
                    for j in range(kw):
                        patch = x[:, y * strides[0] + i * dilations[0],
                                  z * strides[1] + j * dilations[1], g * ci:(g + 1) * ci]
                        out[:, y, z, o] += patch @ w[i, j, :, o]
    return out


def pool_ref(x, k, s, fn, pads=((0, 0), (0, 0))):
    x = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)), constant_values=-np.inf)
    n, h, w, c = x.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    out = np.zeros((n, oh, ow, c), x.dtype)
    for y in range(oh):
        for z in range(ow):
            out[:, y, z, :] = fn(x[:, y * s[0]:y * s[0] + k[0], z * s[1]:z * s[1] + k[1], :],
                                 axis=(1, 2))
    return out


def same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2  # same_upper: the extra one at the end


class LinalgTest(unittest.TestCase):
    @needs("matmul")
    def test_matmul_with_broadcasting(self):
        for sa, sb in (((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((1, 3, 4), (2, 4, 5)),
                       ((4,), (4, 5)), ((3, 4), (4,)), ((1, 1), (1, 1))):
            with self.subTest(a=sa, b=sb):
                a, b = rand(*sa), rand(*sb)
                close(self, run_op("matmul", a, b), np.matmul(a, b))

    @needs("dot", "batch_matmul")
    def test_dot_and_batch_matmul(self):
        a, b = rand(3, 4), rand(4, 2)
        close(self, run_op("dot", a, b), a @ b)
        a, b = rand(2, 3, 4), rand(2, 4, 5)
        close(self, run_op("batch_matmul", a, b), a @ b)

    @needs("gemm")
    def test_gemm(self):
        a, b, c = rand(4, 3), rand(5, 4), rand(3, 5)
        got = run_op("gemm", a, b, c, alpha=0.5, beta=2.0, trans_a=1, trans_b=1)
        close(self, got, 0.5 * (a.T @ b.T) + 2.0 * c)
        a, b = rand(2, 3), rand(3, 4)
        close(self, run_op("gemm", a, b), a @ b)


class ConvPoolTest(unittest.TestCase):
    @needs("conv")
    def test_conv2d(self):
        cases = [
            dict(x=(1, 5, 5, 2), w=(3, 3, 2, 4), attrs={}, pads=((0, 0), (0, 0))),
            dict(x=(2, 7, 6, 3), w=(3, 2, 3, 2), attrs=dict(strides=(2, 2)),
                 pads=((0, 0), (0, 0))),
            dict(x=(1, 7, 7, 2), w=(3, 3, 2, 3), attrs=dict(dilations=(2, 2)),
                 pads=((0, 0), (0, 0))),
            dict(x=(1, 5, 6, 2), w=(3, 3, 2, 2), attrs=dict(padding="explicit", pads=(1, 1, 1, 1)),
                 pads=((1, 1), (1, 1))),
            dict(x=(1, 6, 5, 4), w=(3, 3, 2, 6), attrs=dict(groups=2), pads=((0, 0), (0, 0))),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                x, w = rand(*case["x"]), rand(*case["w"])
                a = case["attrs"]
                want = conv_ref(x, w, a.get("strides", (1, 1)), a.get("dilations", (1, 1)),
                                case["pads"], a.get("groups", 1))
                close(self, run_op("conv", x, w, **a), want, 1e-3)

    @needs("conv")
    def test_conv_same_upper_strided_with_bias(self):
        x, w, bias = rand(1, 7, 6, 3), rand(3, 3, 3, 2), rand(2)
        pads = (same_pads(7, 3, 2), same_pads(6, 3, 2))
        want = conv_ref(x, w, (2, 2), (1, 1), pads) + bias
        close(self, run_op("conv", x, w, bias, strides=(2, 2), padding="same_upper"), want, 1e-3)

    @needs("conv")
    def test_conv_channels_first_oihw(self):
        x, w = rand(1, 2, 5, 5), rand(3, 2, 3, 3)
        want = conv_ref(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0)).transpose(0, 3, 1, 2)
        got = run_op("conv", x, w, layout="channels_first", kernel_layout="OIHW")
        close(self, got, want, 1e-3)

    @needs("max_pool", "avg_pool")
    def test_pooling(self):
        x = rand(2, 6, 7, 3)
        close(self, run_op("max_pool", x, kernel=(2, 2), strides=(2, 2)),
              pool_ref(x, (2, 2), (2, 2), np.max))
        close(self, run_op("avg_pool", x, kernel=(3, 2), strides=(1, 2)),
              pool_ref(x, (3, 2), (1, 2), np.mean))
        pads = (same_pads(6, 3, 2), same_pads(7, 3, 2))
        close(self, run_op("max_pool", x, kernel=(3, 3), strides=(2, 2), padding="same_upper"),
              pool_ref(x, (3, 3), (2, 2), np.max, pads))

    @needs("global_avg_pool", "global_max_pool")
    def test_global_pooling(self):
        x = rand(2, 4, 5, 3)
        close(self, run_op("global_avg_pool", x).reshape(2, 3), x.mean(axis=(1, 2)))
        close(self, run_op("global_max_pool", x).reshape(2, 3), x.max(axis=(1, 2)))


class ReductionTest(unittest.TestCase):
    @needs("sum", "mean", "max", "min", "prod", "variance")
    def test_reductions(self):
        x = rand(3, 4, 5)
        refs = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
                "variance": np.var}
        for op, fn in refs.items():
            for axes in ((1,), (0, 2), (-1,)):
                for keepdims in (0, 1):
                    with self.subTest(op=op, axes=axes, keepdims=keepdims):
                        close(self, run_op(op, x, axes=axes, keepdims=keepdims),
                              fn(x, axis=axes, keepdims=bool(keepdims)))
        close(self, run_op("variance", x, axes=(1,), ddof=1), np.var(x, axis=1, ddof=1))

    @needs("argmax", "argmin")
    def test_argmax_argmin_first_of_ties(self):
        x = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [5, 0, 5, 0]], np.float32)
        np.testing.assert_array_equal(run_op("argmax", x, axis=1), np.argmax(x, axis=1))
        np.testing.assert_array_equal(run_op("argmin", x, axis=1), np.argmin(x, axis=1))
        np.testing.assert_array_equal(run_op("argmax", x, axis=0), np.argmax(x, axis=0))
        got = run_op("argmax", x, axis=1, keepdims=1)
        np.testing.assert_array_equal(got, np.argmax(x, axis=1)[:, None])

    @needs("cumsum", "cumprod")
    def test_cumulative(self):
        x = rand(3, 4)
        close(self, run_op("cumsum", x, axis=1), np.cumsum(x, axis=1))
        close(self, run_op("cumprod", x, axis=0), np.cumprod(x, axis=0))
        ex = np.concatenate([np.zeros((3, 1), np.float32), np.cumsum(x, axis=1)[:, :-1]], 1)
        close(self, run_op("cumsum", x, axis=1, exclusive=1), ex)
        rev = np.flip(np.cumsum(np.flip(x, 1), axis=1), 1)
        close(self, run_op("cumsum", x, axis=1, reverse=1), rev)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


class ActivationTest(unittest.TestCase):
    @needs("relu", "sigmoid", "tanh", "elu", "gelu", "hard_sigmoid", "softplus", "clip")
    def test_activations(self):
        x = np.linspace(-4, 4, 17).astype(np.float32).reshape(1, 17)
        erf = np.vectorize(math.erf)
        cases = [
            ("relu", {}, np.maximum(x, 0)),
            ("relu", dict(alpha=0.1), np.where(x > 0, x, 0.1 * x)),
            ("relu", dict(max_value=2.0), np.clip(x, 0, 2)),
            ("sigmoid", {}, 1 / (1 + np.exp(-x))),
            ("tanh", {}, np.tanh(x)),
            ("elu", dict(alpha=0.5), np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
            ("gelu", {}, 0.5 * x * (1 + erf(x / np.sqrt(2)))),
            ("hard_sigmoid", {}, np.clip(0.2 * x + 0.5, 0, 1)),
            ("softplus", {}, np.log1p(np.exp(x))),
            ("clip", dict(min=-1.0, max=0.5), np.clip(x, -1, 0.5)),
        ]
        for op, attrs, want in cases:
            with self.subTest(op=op, attrs=attrs):
                close(self, run_op(op, x, **attrs), want, 1e-4)

    @needs("softmax", "log_softmax")
    def test_softmax(self):
        x = rand(3, 5) * 4
        close(self, run_op("softmax", x), softmax(x, -1))
        close(self, run_op("softmax", x, axis=0), softmax(x, 0))
        close(self, run_op("log_softmax", x, axis=1), np.log(softmax(x, 1)))

    @needs("batch_norm")
    def test_batch_norm(self):
        x, s, b, m, v = rand(2, 3, 4), rand(4), rand(4), rand(4), np.abs(rand(4)) + 0.5
        want = (x - m) / np.sqrt(v + 1e-3) * s + b
        close(self, run_op("batch_norm", x, s, b, m, v, epsilon=1e-3, axis=-1), want)

    @needs("layer_norm")
    def test_layer_norm(self):
        x, s, b = rand(3, 6), rand(6), rand(6)
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        want = (x - mu) / np.sqrt(var + 1e-5) * s + b
        close(self, run_op("layer_norm", x, s, b, axes=(-1,), epsilon=1e-5), want)
        close(self, run_op("layer_norm", x, axes=(-1,), epsilon=1e-5),
              (x - mu) / np.sqrt(var + 1e-5))

    @needs("binary_crossentropy", "categorical_crossentropy")
    def test_crossentropies(self):
        t = (RNG.random((4, 3)) > 0.5).astype(np.float32)
        p = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
        bce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
        close(self, run_op("binary_crossentropy", t, p, reduction="mean"), bce.mean())
        z = rand(4, 3)
        sz = 1 / (1 + np.exp(-z))
        bce_z = -(t * np.log(sz) + (1 - t) * np.log(1 - sz))
        close(self, run_op("binary_crossentropy", t, z, from_logits=1, reduction="sum"),
              bce_z.sum())
        onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
        q = softmax(z, -1)
        cce = -(onehot * np.log(q)).sum(-1)
        close(self, run_op("categorical_crossentropy", onehot, q, reduction="none"), cce)
        close(self, run_op("categorical_crossentropy", onehot, z, from_logits=1), cce.mean())


class ShapeOpTest(unittest.TestCase):
    @needs("reshape", "transpose", "squeeze", "unsqueeze", "flatten")
    def test_reshapes(self):
        x = rand(2, 1, 3, 4)
        close(self, run_op("reshape", x, shape=(6, 4)), x.reshape(6, 4))
        close(self, run_op("reshape", x, shape=(-1, 2)), x.reshape(-1, 2))
        close(self, run_op("transpose", x, perm=(3, 0, 2, 1)), x.transpose(3, 0, 2, 1))
        close(self, run_op("squeeze", x, axes=(1,)), x.squeeze(1))
        close(self, run_op("unsqueeze", x, axes=(0,)), x[None])
        close(self, run_op("flatten", x, axis=2), x.reshape(2, 12))

    @needs("concatenate")
    def test_concatenate(self):
        a, b, c = rand(2, 3), rand(2, 1), rand(2, 4)
        close(self, run_op("concatenate", a, b, c, axis=1), np.concatenate([a, b, c], 1))
        close(self, run_op("concatenate", a, a, axis=0), np.concatenate([a, a], 0))
        bld = plaidml.Builder()
        x, y = bld.input("X", 2), bld.input("Y", 2)
        bld.output("R", plaidml.op.concatenate([x, y], axis=-1))
        out = plaidml.run(bld.build(), {"X": a, "Y": c})["R"]
        close(self, out, np.concatenate([a, c], -1))

    @needs("slice")
    def test_slice(self):
        x = rand(5, 6)
        close(self, run_op("slice", x, starts=(1,), ends=(4,), axes=(0,)), x[1:4])
        close(self, run_op("slice", x, starts=(0, 1), ends=(5, -1), axes=(0, 1), steps=(2, 2)),
              x[0:5:2, 1:-1:2])
        close(self, run_op("slice", x, starts=(4,), ends=(0,), steps=(-2,)), x[4:0:-2])

    @needs("pad")
    def test_pad_modes(self):
        x = np.arange(1, 6, dtype=np.float32)
        for mode in ("constant", "reflect", "edge"):
            with self.subTest(mode=mode):
                want = np.pad(x, (2, 1), mode=mode)
                close(self, run_op("pad", x, pads=(2, 1), mode=mode), want)
        close(self, run_op("pad", x, pads=(1, 3), mode="constant", value=-7.0),
              np.pad(x, (1, 3), constant_values=-7))
        x2 = rand(3, 4)
        close(self, run_op("pad", x2, pads=(1, 1, 1, 1)), np.pad(x2, 1))

    @needs("tile", "repeat")
    def test_tile_and_repeat(self):
        x = rand(2, 3)
        close(self, run_op("tile", x, reps=(2, 3)), np.tile(x, (2, 3)))
        close(self, run_op("repeat", x, repeats=3, axis=1), np.repeat(x, 3, axis=1))

    @needs("gather")
    def test_gather(self):
        x = rand(5, 3)
        idx = np.array([4, 0, 2, 2], np.int32)
        close(self, run_op("gather", x, idx, axis=0), np.take(x, idx, axis=0))
        idx2 = np.array([[2, 1], [0, 0]], np.int32)
        close(self, run_op("gather", x, idx2, axis=1), np.take(x, idx2, axis=1))

    @needs("one_hot")
    def test_one_hot(self):
        idx = np.array([0, 3, 1], np.int32)
        np.testing.assert_array_equal(run_op("one_hot", idx, depth=4), np.eye(4)[idx])
        got = run_op("one_hot", idx, depth=4, on_value=5.0, off_value=-1.0)
        np.testing.assert_array_equal(got, np.where(np.eye(4)[idx] == 1, 5, -1))


class OpErrorTest(unittest.TestCase):
    @needs("softmax")
    def test_axis_out_of_range_names_the_op(self):
        with self.assertRaises(plaidml.PlaidMLError) as cm:
            run_op("softmax", rand(2, 3), axis=5)
        self.assertIn("softmax", cm.exception.message)

    @needs("transpose")
    def test_unknown_attribute_names_it(self):
        with self.assertRaises(plaidml.InvalidArgumentError) as cm:
            run_op("transpose", rand(2, 3), perm=(1, 0), bogus=1)
        self.assertIn("bogus", cm.exception.message)

    @needs("matmul")
    def test_op_module_lists_the_ops(self):
        self.assertIn("matmul", dir(plaidml.op))
        self.assertIn("matmul", plaidml.op_names())


if __name__ == "__main__":
    unittest.main()
