"""The ONNX importer's contract (include/plaidml/onnx.h): models built with onnx.helper, imported
with plaidml.onnx, run against numpy; and every bad-input message, by status and text.

Run with the ONNX venv's python (scripts/onnx-venv.sh), PLAIDML_LIBRARY and PLAIDML_ONNX_LIBRARY
set (CTest does: onnx.import).
"""
import ctypes
import os
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import plaidml
import plaidml.onnx

F32 = TensorProto.FLOAT


def model(nodes, inputs, outputs, initializers=(), opset=17, ir=8):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def vinfo(name, dims, elem=F32):
    return helper.make_tensor_value_info(name, elem, dims)


def add_relu(weight=None):
    """Y = relu(X + W): X f32[batch, 3], W f32[2, 3] an initializer."""
    w = weight if weight is not None else np.arange(6, dtype=np.float32).reshape(2, 3)
    return model([helper.make_node("Add", ["X", "W"], ["S"], name="add"),
                  helper.make_node("Relu", ["S"], ["Y"], name="relu")],
                 [vinfo("X", ["batch", 3])], [vinfo("Y", None)],
                 [numpy_helper.from_array(w, "W")])


class ImportAndRun(unittest.TestCase):
    def test_names_types_and_shapes_are_the_models(self):
        program = plaidml.onnx.load_bytes(add_relu().SerializeToString())
        self.assertEqual(program.inputs, ["X"])
        self.assertEqual(program.outputs, ["Y"])
        self.assertEqual(program.input_types(), {"X": (["Batch", 3], np.dtype(np.float32))})
        self.assertEqual(program.constants(), (1, 24))

    def test_symbolic_batch_runs_at_any_size_and_a_fixed_one_is_checked(self):
        program = plaidml.onnx.load_bytes(add_relu().SerializeToString())
        ctx = plaidml.Context()
        w = np.arange(6, dtype=np.float32).reshape(2, 3)
        x = np.array([[-1, 2, -30], [4, -5, 6]], np.float32)
        np.testing.assert_array_equal(ctx.run(program, {"X": x})["Y"], np.maximum(x + w, 0))
        fixed = plaidml.onnx.load_bytes(add_relu().SerializeToString(), batch=2)
        self.assertEqual(fixed.input_types()["X"][0], [2, 3])
        np.testing.assert_array_equal(ctx.run(fixed, {"X": x})["Y"], np.maximum(x + w, 0))
        with self.assertRaisesRegex(plaidml.PlaidMLError, "has size 2 at axis 0"):
            ctx.run(fixed, {"X": np.zeros((3, 3), np.float32)})

    def test_symbolic_lengths_through_many_slices_import_and_run_at_any_length(self):
        # Each layer slices its input to min(length, 1024) along the sequence, as exported
        # transformers clamp positions: every size uses the one before it several times, so
        # written out as trees the last would be exponentially large (docs/onnx.md).
        layers = 40
        nodes = []
        x = "X"
        for i in range(layers):
            nodes += [helper.make_node("Shape", [x], [f"shape{i}"]),
                      helper.make_node("Gather", [f"shape{i}", "one"], [f"len{i}"], axis=0),
                      helper.make_node("Min", [f"len{i}", "cap"], [f"end{i}"]),
                      helper.make_node("Slice", [x, "zero", f"end{i}", "one"], [f"cut{i}"]),
                      helper.make_node("Relu", [f"cut{i}"], [f"out{i}"])]
            x = f"out{i}"
        consts = [numpy_helper.from_array(np.array([v], np.int64), name)
                  for name, v in (("zero", 0), ("one", 1), ("cap", 1024))]
        m = model(nodes, [vinfo("X", [1, "sequence", 4])], [vinfo(x, None)], consts)
        program = plaidml.onnx.load_bytes(m.SerializeToString())
        text = str(program)
        self.assertIn("size _S0 = ", text)
        self.assertLess(len(text), 20000)
        ctx = plaidml.Context()
        rng = np.random.default_rng(3)
        for length in (5, 1030):
            v = rng.standard_normal((1, length, 4)).astype(np.float32)
            out = ctx.run(program, {"X": v})[x]
            np.testing.assert_array_equal(out, np.maximum(v[:, :min(length, 1024)], 0))

    def test_weights_are_uploaded_once(self):
        program = plaidml.onnx.load_bytes(add_relu().SerializeToString())
        ctx = plaidml.Context()
        for _ in range(3):
            ctx.run(program, {"X": np.ones((2, 3), np.float32)})
        self.assertEqual(ctx.stats()["constant_uploads"], 1)

    def test_external_data_is_read_from_the_models_folder(self):
        w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.onnx")
            onnx.save_model(add_relu(w), path, save_as_external_data=True,
                            all_tensors_to_one_file=True, location="weights.bin",
                            size_threshold=0)
            program = plaidml.onnx.load(path)
            x = np.ones((2, 3), np.float32)
            np.testing.assert_allclose(plaidml.run(program, {"X": x})["Y"], np.maximum(x + w, 0))

    def test_describe_lists_the_model_and_what_does_not_import(self):
        m = add_relu()
        m.graph.node.append(helper.make_node("Frobnicate", ["Y"], ["Z"], name="odd"))
        m.graph.output.append(vinfo("Z", None))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.onnx")
            onnx.save_model(m, path)
            text = plaidml.onnx.describe(path)
        self.assertIn("X: f32[batch, 3]", text)
        self.assertIn("Add 1", text)
        self.assertIn("constants: 1 initializers, 24 bytes", text)
        self.assertIn("node 'odd' (Frobnicate, opset 17): Frobnicate is not an ONNX operator",
                      text)
        self.assertIn("import: PLAIDML_STATUS_UNSUPPORTED", text)


def const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name))


def conv_net(rng):
    """A small image network touching every channels-last converter: Conv (grouped, and with a
    weight computed at run time), BatchNormalization, Relu, Add of a [C, 1, 1] bias and of a
    residual, MaxPool, AveragePool, Concat on the channels, GlobalAveragePool, Flatten, Gemm;
    and a second output read channels first (Transpose)."""
    def w(name, *dims):
        return numpy_helper.from_array(rng.standard_normal(dims).astype(np.float32), name)
    inits = [w("W1", 8, 3, 3, 3), w("B1", 8), w("W2", 8, 4, 3, 3), w("bias", 8, 1, 1),
             numpy_helper.from_array(rng.random(8).astype(np.float32) + 0.5, "g"),
             w("b", 8), w("m", 8), numpy_helper.from_array(rng.random(8).astype(np.float32) + 0.5,
                                                           "v"),
             w("FC", 4, 16)]
    nodes = [
        helper.make_node("Conv", ["X", "W1", "B1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "g", "b", "m", "v"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("Conv", ["r", "W2"], ["c2"], pads=[1, 1, 1, 1], group=2),
        helper.make_node("Add", ["c2", "bias"], ["c2b"]),
        helper.make_node("Add", ["c2b", "r"], ["res"]),
        helper.make_node("MaxPool", ["res"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["res"], ["ap"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 0, 0]),
        helper.make_node("Concat", ["mp", "ap"], ["cat"], axis=1),
        helper.make_node("Conv", ["cat", "Wx"], ["cx"]),
        helper.make_node("GlobalAveragePool", ["cat"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("Gemm", ["flat", "FC"], ["Y"], transB=1),
        helper.make_node("Transpose", ["cx"], ["Z"], perm=[0, 2, 3, 1]),
    ]
    return model(nodes, [vinfo("X", [2, 3, 9, 9]), vinfo("Wx", [5, 16, 1, 1])],
                 [vinfo("Y", None), vinfo("Z", None)], inits)


class GemmWeights(unittest.TestCase):
    def test_transposed_weights_known_at_import_match_onnxruntime(self):
        # Gemm's B as an initializer with transB=1 (PyTorch's Linear) moves to [K, N] on the
        # host; one row (a vector times the weights) and several, with alpha, beta and C.
        import onnxruntime
        rng = np.random.default_rng(11)
        w = numpy_helper.from_array(rng.random((1000, 300)).astype(np.float32), "W")
        c = numpy_helper.from_array(rng.random(1000).astype(np.float32), "C")
        for rows in (1, 3):
            for attrs in ({}, {"alpha": 0.5, "beta": 2.0}):
                m = model([helper.make_node("Gemm", ["X", "W", "C"], ["Y"], transB=1, **attrs)],
                          [vinfo("X", [rows, 300])], [vinfo("Y", None)], [w, c])
                feeds = {"X": rng.random((rows, 300)).astype(np.float32)}
                want = onnxruntime.InferenceSession(
                    m.SerializeToString(), providers=["CPUExecutionProvider"]).run(["Y"], feeds)
                got = plaidml.run(plaidml.onnx.load_bytes(m.SerializeToString()), feeds)
                np.testing.assert_allclose(got["Y"], want[0], rtol=1e-4, atol=1e-4,
                                           err_msg="rows %d, %s" % (rows, attrs))


class ChannelsLast(unittest.TestCase):
    def test_both_layouts_match_onnxruntime(self):
        import onnxruntime
        rng = np.random.default_rng(7)
        m = conv_net(rng).SerializeToString()
        feeds = {"X": rng.standard_normal((2, 3, 9, 9)).astype(np.float32),
                 "Wx": rng.standard_normal((5, 16, 1, 1)).astype(np.float32)}
        want = onnxruntime.InferenceSession(m, providers=["CPUExecutionProvider"]).run(
            ["Y", "Z"], feeds)
        for last in (True, False):
            got = plaidml.run(plaidml.onnx.load_bytes(m, channels_last=last), feeds)
            for name, ref in zip(["Y", "Z"], want):
                np.testing.assert_allclose(got[name], ref, rtol=1e-4, atol=1e-4,
                                           err_msg="%s, channels_last=%s" % (name, last))

    def test_a_weight_read_again_after_its_conv_is_still_there(self):
        # Import drops each value after its last reader, and the conv reads W first as an HWIO
        # copy: the later ReduceSum must still see W itself. Loaded from a file, as a model
        # file is parsed while it is read.
        import onnxruntime
        rng = np.random.default_rng(3)
        w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
        m = model([helper.make_node("Conv", ["X", "W"], ["c"], pads=[1, 1, 1, 1]),
                   helper.make_node("ReduceSum", ["W"], ["s"], keepdims=0),
                   helper.make_node("Add", ["c", "s"], ["Y"])],
                  [vinfo("X", [1, 3, 5, 5])], [vinfo("Y", None)],
                  [numpy_helper.from_array(w, "W")])
        feeds = {"X": rng.standard_normal((1, 3, 5, 5)).astype(np.float32)}
        want = onnxruntime.InferenceSession(m.SerializeToString(),
                                            providers=["CPUExecutionProvider"]).run(["Y"], feeds)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.onnx")
            onnx.save(m, path)
            got = plaidml.run(plaidml.onnx.load(path), feeds)
        np.testing.assert_allclose(got["Y"], want[0], rtol=1e-4, atol=1e-4)

    def test_host_transposes_match_numpy(self):
        # Transposes of known tensors run on the host at import (weights go OIHW -> HWIO that
        # way), in tiles when the innermost axis moves: every permutation, edges of the tiles.
        import itertools
        rng = np.random.default_rng(5)
        for shape in [(5, 3, 2, 4), (17, 33), (1, 18, 19), (20, 3, 3, 1)]:
            for perm in itertools.permutations(range(len(shape))):
                for dtype, elem in [(np.float32, F32), (np.int8, TensorProto.INT8)]:
                    a = (rng.standard_normal(shape) * 10).astype(dtype)
                    m = model([helper.make_node("Transpose", ["W"], ["Y"], perm=list(perm))], [],
                              [vinfo("Y", None, elem)], [numpy_helper.from_array(a, "W")])
                    got = plaidml.run(plaidml.onnx.load_bytes(m.SerializeToString()), {})["Y"]
                    np.testing.assert_array_equal(got, a.transpose(perm),
                                                  err_msg="%s %s" % (shape, perm))
        # A weight of 5.5 MB (storage on 2 MiB pages) OIHW -> HWIO, whose H and W move as one
        # axis of 9 (axes the source holds adjacent and in order are merged).
        a = rng.standard_normal((512, 300, 3, 3)).astype(np.float32)
        m = model([helper.make_node("Transpose", ["W"], ["Y"], perm=[2, 3, 1, 0])], [],
                  [vinfo("Y", None, F32)], [numpy_helper.from_array(a, "W")])
        got = plaidml.run(plaidml.onnx.load_bytes(m.SerializeToString()), {})["Y"]
        np.testing.assert_array_equal(got, a.transpose(2, 3, 1, 0))

    def test_the_option_rejects_null(self):
        with self.assertRaisesRegex(plaidml.InvalidArgumentError, "argument 'options' is NULL"):
            plaidml.onnx._call("plaidml_onnx_options_set_channels_last", None, True)


class ImportCache(unittest.TestCase):
    """A model file imported again comes back from the disk cache (plaidml_onnx_options_set_cache),
    computing what onnxruntime computes; a damaged entry, a changed file or other options import
    anew."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.saved = os.environ.get("PLAIDML_CACHE_DIR")
        os.environ["PLAIDML_CACHE_DIR"] = os.path.join(self.folder.name, "cache")
        self.entries = os.path.join(self.folder.name, "cache", "programs")

    def tearDown(self):
        if self.saved is None:
            del os.environ["PLAIDML_CACHE_DIR"]
        else:
            os.environ["PLAIDML_CACHE_DIR"] = self.saved
        self.folder.cleanup()

    def entry_files(self):
        return sorted(os.listdir(self.entries)) if os.path.isdir(self.entries) else []

    def test_a_second_import_reads_the_entry_and_agrees_with_onnxruntime(self):
        import onnxruntime
        rng = np.random.default_rng(11)
        m = conv_net(rng)
        path = os.path.join(self.folder.name, "net.onnx")
        onnx.save(m, path)
        feeds = {"X": rng.standard_normal((2, 3, 9, 9)).astype(np.float32),
                 "Wx": rng.standard_normal((5, 16, 1, 1)).astype(np.float32)}
        want = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
            ["Y", "Z"], feeds)

        def check(program):
            got = plaidml.run(program, feeds)
            for name, ref in zip(["Y", "Z"], want):
                np.testing.assert_allclose(got[name], ref, rtol=1e-4, atol=1e-4)

        first = plaidml.onnx.load(path)
        check(first)
        (entry,) = self.entry_files()
        entry_path = os.path.join(self.entries, entry)
        inode = os.stat(entry_path).st_ino
        second = plaidml.onnx.load(path)
        self.assertEqual(second.print(), first.print())
        check(second)
        self.assertEqual(os.stat(entry_path).st_ino, inode)  # read, not written again
        # A damaged entry is not used: the model imports anew and the entry is rewritten.
        size = os.path.getsize(entry_path)
        with open(entry_path, "r+b") as f:
            f.truncate(size // 2)
        check(plaidml.onnx.load(path))
        self.assertEqual(os.path.getsize(entry_path), size)
        # Other options, or the file written again, are other keys; cache=False stores nothing.
        check(plaidml.onnx.load(path, channels_last=False))
        self.assertEqual(len(self.entry_files()), 2)
        plaidml.onnx.load(path, cache=False)
        self.assertEqual(len(self.entry_files()), 2)
        onnx.save(m, path)
        check(plaidml.onnx.load(path))
        self.assertEqual(len(self.entry_files()), 3)

    def test_bytes_and_bound_values_are_not_cached(self):
        m = add_relu()
        path = os.path.join(self.folder.name, "m.onnx")
        onnx.save(m, path)
        plaidml.onnx.load_bytes(m.SerializeToString())
        plaidml.onnx.load(path, values={"X": np.ones((1, 3), np.float32)})
        self.assertEqual(self.entry_files(), [])
        x = np.array([[-9, 1, 2]], np.float32)
        for _ in range(2):
            got = plaidml.run(plaidml.onnx.load(path), {"X": x})["Y"]
            np.testing.assert_array_equal(got, np.maximum(x + np.arange(6).reshape(2, 3), 0))
        self.assertEqual(len(self.entry_files()), 1)

    def test_the_option_rejects_null(self):
        with self.assertRaisesRegex(plaidml.InvalidArgumentError, "argument 'options' is NULL"):
            plaidml.onnx._call("plaidml_onnx_options_set_cache", None, True)


class SymbolicSizes(unittest.TestCase):
    """The shape computations of exported transformers, on sizes only known at run time."""

    def test_slice_to_a_run_time_length(self):
        # BERT's position ids: table[:, :seq] with seq = Shape(X)[1], then added to X.
        table = np.arange(16, dtype=np.float32).reshape(2, 8)
        nodes = [const("table", table), const("zero", np.array([0], np.int64)),
                 const("one", np.array(1, np.int64)), const("axes", np.array([0], np.int64)),
                 const("axis1", np.array([1], np.int64)),
                 helper.make_node("Shape", ["X"], ["shape"]),
                 helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
                 helper.make_node("Unsqueeze", ["seq", "axes"], ["end"]),
                 helper.make_node("Slice", ["table", "zero", "end", "axis1"], ["cut"]),
                 helper.make_node("Add", ["X", "cut"], ["Y"])]
        program = plaidml.onnx.load_bytes(model(nodes, [vinfo("X", [2, "seq"])],
                                                [vinfo("Y", None)]).SerializeToString())
        ctx = plaidml.Context()
        for seq in (3, 8):
            x = np.linspace(-1, 1, 2 * seq, dtype=np.float32).reshape(2, seq)
            np.testing.assert_array_equal(ctx.run(program, {"X": x})["Y"], x + table[:, :seq])

    def test_a_run_time_slice_with_a_step_is_refused_by_name(self):
        nodes = [const("zero", np.array([0], np.int64)), const("one", np.array(1, np.int64)),
                 const("axes", np.array([0], np.int64)), const("two", np.array([2], np.int64)),
                 helper.make_node("Shape", ["X"], ["shape"]),
                 helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
                 helper.make_node("Unsqueeze", ["seq", "axes"], ["end"]),
                 helper.make_node("Slice", ["X", "zero", "end", "axes", "two"], ["Y"],
                                  name="cut")]
        m = model(nodes, [vinfo("X", ["n", "seq"])], [vinfo("Y", None)])
        with self.assertRaisesRegex(plaidml.onnx.Unsupported,
                                    "node 'cut' \\(Slice, opset 17\\): a slice with step 2 and "
                                    "bounds not known at import"):
            plaidml.onnx.load_bytes(m.SerializeToString())

    def test_expand_to_where_equal_minus_one(self):
        # GPT-2's mask: Expand(M, Where(Equal(s, -1), 1, s)), s = [batch, -1, 3].
        m = np.array([[[1.0], [2.0]]], np.float32)  # [1, 2, 1]
        nodes = [const("m", m), const("zero", np.array([0], np.int64)),
                 const("rest", np.array([-1, 3], np.int64)),
                 const("minus", np.array([-1, -1, -1], np.int64)),
                 const("ones", np.array([1, 1, 1], np.int64)),
                 helper.make_node("Shape", ["X"], ["shape"]),
                 helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
                 helper.make_node("Concat", ["batch", "rest"], ["s"], axis=0),
                 helper.make_node("Equal", ["s", "minus"], ["is_minus"]),
                 helper.make_node("Where", ["is_minus", "ones", "s"], ["target"]),
                 helper.make_node("Expand", ["m", "target"], ["E"]),
                 helper.make_node("Mul", ["E", "X"], ["Y"])]
        program = plaidml.onnx.load_bytes(model(nodes, [vinfo("X", ["batch", 2, 3])],
                                                [vinfo("Y", None)]).SerializeToString())
        x = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
        np.testing.assert_array_equal(plaidml.Context().run(program, {"X": x})["Y"],
                                      np.broadcast_to(m, (4, 2, 3)) * x)


class SizeAssertions(unittest.TestCase):
    """Sizes that must agree but are symbolic at import are checked when the program runs, with
    the converter's message (an assertion of the program), not a symptom of a later node."""

    def run_error(self, m, feeds, text):
        program = plaidml.onnx.load_bytes(m.SerializeToString())
        with self.assertRaises(plaidml.PlaidMLError) as raised:
            plaidml.Context().run(program, feeds)
        self.assertIn(text, str(raised.exception))

    def test_conv_transpose_channels(self):
        m = model([helper.make_node("ConvTranspose", ["X", "W"], ["Y"], name="ct",
                                    kernel_shape=[3])],
                  [vinfo("X", [1, "c", 4]), vinfo("W", ["cw", 2, 3])], [vinfo("Y", None)])
        x, w = np.ones((1, 2, 4), np.float32), np.ones((2, 2, 3), np.float32)
        got = plaidml.run(plaidml.onnx.load_bytes(m.SerializeToString()), {"X": x, "W": w})["Y"]
        self.assertEqual(got.shape, (1, 2, 6))
        self.run_error(m, {"X": np.ones((1, 3, 4), np.float32), "W": w},
                       "node 'ct' (ConvTranspose, opset 17): the input has 3 channels but the "
                       "weight's axis 0 has 2")

    def test_group_normalization_groups(self):
        m = model([helper.make_node("GroupNormalization", ["X", "S", "B"], ["Y"], name="gn",
                                    num_groups=2)],
                  [vinfo("X", [1, "c", 4]), vinfo("S", ["c"]), vinfo("B", ["c"])],
                  [vinfo("Y", None)], opset=21, ir=10)
        c3 = np.ones((3,), np.float32)
        self.run_error(m, {"X": np.ones((1, 3, 4), np.float32), "S": c3, "B": c3},
                       "node 'gn' (GroupNormalization, opset 21): num_groups 2 does not divide "
                       "the 3 channels")

    def test_attention_heads(self):
        m = model([helper.make_node("Attention", ["Q", "K", "V"], ["Y"], name="att",
                                    q_num_heads=2, kv_num_heads=2, scale=0.5)],
                  [vinfo("Q", [1, 3, "h"]), vinfo("K", [1, 3, "h"]), vinfo("V", [1, 3, "h"])],
                  [vinfo("Y", None)], opset=23, ir=10)
        ok = np.ones((1, 3, 4), np.float32)
        got = plaidml.run(plaidml.onnx.load_bytes(m.SerializeToString()),
                          {"Q": ok, "K": ok, "V": ok})["Y"]
        self.assertEqual(got.shape, (1, 3, 4))
        odd = np.ones((1, 3, 5), np.float32)
        self.run_error(m, {"Q": odd, "K": odd, "V": odd},
                       "input 0's hidden size 5 is not a multiple of its 2 heads")


class BitCastTest(unittest.TestCase):
    """BitCast (opset 26) against numpy's view; the pairs plaidml cannot reinterpret are refused
    at import, naming the types."""

    def bitcast_model(self, elem_in, to):
        return model([helper.make_node("BitCast", ["X"], ["Y"], name="bc", to=to)],
                     [vinfo("X", [4], elem_in)], [vinfo("Y", None, to)], opset=26, ir=13)

    def test_float_and_int_bits_round_trip(self):
        x = np.array([1.0, -2.5, np.inf, -0.0], np.float32)
        got = plaidml.run(plaidml.onnx.load_bytes(
            self.bitcast_model(F32, TensorProto.UINT32).SerializeToString()), {"X": x})["Y"]
        np.testing.assert_array_equal(got, x.view(np.uint32))
        back = plaidml.run(plaidml.onnx.load_bytes(
            self.bitcast_model(TensorProto.UINT32, F32).SerializeToString()),
            {"X": x.view(np.uint32)})["Y"]
        np.testing.assert_array_equal(back.view(np.uint32), x.view(np.uint32))

    def test_refused_pairs(self):
        cases = [(F32, TensorProto.INT64, plaidml.InvalidArgumentError,
                  "BitCast needs types of one width, but f32 has 32 bits and i64 has 64"),
                 (TensorProto.UINT8, TensorProto.BOOL, plaidml.onnx.Unsupported,
                  "BitCast to bool is not supported"),
                 (TensorProto.FLOAT16, TensorProto.INT16, plaidml.onnx.Unsupported,
                  "BitCast between f16 and i16 is not supported (16-bit floats)"),
                 (TensorProto.FLOAT16, TensorProto.BFLOAT16, plaidml.onnx.Unsupported,
                  "BitCast between f16 and bf16 is not supported")]
        for elem_in, to, error, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(error) as raised:
                    plaidml.onnx.load_bytes(self.bitcast_model(elem_in, to).SerializeToString())
                self.assertIn(text, str(raised.exception))


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def nested_if_graphs(depth):
    """A model's bytes, written by hand (helper cannot nest 100,000 deep): a graph whose one If
    node holds, as its then_branch, a graph whose one If node holds ... `depth` graphs deep.
    Each level is a few headers before the level inside it, so the bytes are the levels'
    headers, outermost first: built in linear time from the lengths, innermost first."""
    name = b"\x0a\x0bthen_branch"  # AttributeProto.name
    graph_type = b"\xa0\x01\x05"     # AttributeProto.type = GRAPH
    op_type = b"\x22\x02If"          # NodeProto.op_type
    headers, inner = [], 0
    for _ in range(depth):
        g = b"\x32" + varint(inner)   # AttributeProto.g, holding the inner graph
        attr = len(name) + len(graph_type) + len(g) + inner
        a = b"\x2a" + varint(attr)    # NodeProto.attribute
        node = len(op_type) + len(a) + attr
        n = b"\x0a" + varint(node)    # GraphProto.node
        headers.append(n + op_type + a + name + graph_type + g)
        inner = len(n) + node
    return b"\x08\x08\x3a" + varint(inner) + b"".join(reversed(headers))  # ir_version, graph


class DeepModels(unittest.TestCase):
    """Depths a generator or a hostile file can reach: every stage is linear or refuses."""

    def test_a_chain_of_100000_nodes_imports_and_runs(self):
        n = 100000
        nodes = [helper.make_node("Add", ["X", "X"], ["T0"])]
        nodes += [helper.make_node("Add", [f"T{i - 1}", "X"], [f"T{i}"]) for i in range(1, n)]
        m = model(nodes, [vinfo("X", [3])], [vinfo(f"T{n - 1}", None)])
        program = plaidml.onnx.load_bytes(m.SerializeToString())
        x = np.array([1, -2, 3], np.float32)
        y = plaidml.Context().run(program, {"X": x})[f"T{n - 1}"]
        np.testing.assert_array_equal(y, (n + 1) * x)

    def test_graphs_nested_100000_deep_are_refused(self):
        # The writer itself, checked at a depth protobuf parses: the If node and its subgraph.
        shallow = onnx.ModelProto.FromString(nested_if_graphs(2))
        self.assertEqual(shallow.graph.node[0].attribute[0].g.node[0].op_type, "If")
        data = nested_if_graphs(100000)
        with self.assertRaises(plaidml.InvalidArgumentError) as raised:
            plaidml.onnx.load_bytes(data)
        self.assertIn("the protobuf is truncated or corrupt, or nests messages more than 100 "
                      "levels deep", str(raised.exception))


class BadInput(unittest.TestCase):
    def import_error(self, m, error, text):
        data = m if isinstance(m, bytes) else m.SerializeToString()
        with self.assertRaises(error) as raised:
            plaidml.onnx.load_bytes(data)
        self.assertIn(text, str(raised.exception))

    def test_not_a_model(self):
        good = add_relu().SerializeToString()
        self.import_error(good[: len(good) // 2], plaidml.InvalidArgumentError,
                          "the protobuf is truncated or corrupt")
        self.import_error(b"\xff\xff\xff\xff garbage", plaidml.InvalidArgumentError,
                          "not an ONNX model")
        self.import_error(b"", plaidml.InvalidArgumentError, "it has no graph and no IR version")

    def test_versions(self):
        m = add_relu()
        m.ir_version = 99
        self.import_error(m, plaidml.onnx.Unsupported,
                          "the model has IR version 99; plaidml imports IR versions 3 to 14")
        m = add_relu()
        m.opset_import[0].version = 99
        self.import_error(m, plaidml.onnx.Unsupported,
                          "the model uses opset 99 of the default domain; plaidml imports opsets "
                          "1 to 28")
        m = add_relu()
        m.opset_import[0].version = 5  # Add's version then (6) has legacy broadcast attributes
        self.import_error(m, plaidml.onnx.Unsupported,
                          "node 'add' (Add, opset 5): Add version 1 (in effect at opset 5) is not "
                          "supported")

    def test_graph_structure(self):
        cycle = model([helper.make_node("Relu", ["B"], ["A"], name="a"),
                       helper.make_node("Relu", ["A"], ["B"], name="b")],
                      [vinfo("X", [2])], [vinfo("B", None)])
        self.import_error(cycle, plaidml.InvalidArgumentError,
                          "the graph has a cycle: node 'a' (Relu, opset 17)")
        undefined = model([helper.make_node("Relu", ["Q"], ["Y"], name="r")],
                          [vinfo("X", [2])], [vinfo("Y", None)])
        self.import_error(undefined, plaidml.InvalidArgumentError,
                          "node 'r' (Relu, opset 17) uses 'Q', which no input, initializer or "
                          "node defines")
        duplicate = model([helper.make_node("Relu", ["X"], ["Y"], name="r1"),
                           helper.make_node("Relu", ["X"], ["Y"], name="r2")],
                          [vinfo("X", [2])], [vinfo("Y", None)])
        self.import_error(duplicate, plaidml.InvalidArgumentError,
                          "node 'r2' (Relu, opset 17) makes 'Y', a name that is already defined")
        shadow = model([helper.make_node("Relu", ["X"], ["X"], name="r")],
                       [vinfo("X", [2])], [vinfo("X", None)])
        self.import_error(shadow, plaidml.InvalidArgumentError,
                          "makes 'X', a name that is already defined")

    def test_declared_output_dtype_that_the_graph_does_not_compute(self):
        # Found by fuzz_onnx_import (fuzz/regressions/onnx_import/declared_output_dtype): this
        # was INTERNAL, "please report", though the model is what is wrong.
        m = model([helper.make_node("Relu", ["X"], ["Y"], name="r")],
                  [vinfo("X", [2])], [vinfo("Y", [2], TensorProto.INT8)])
        self.import_error(m, plaidml.InvalidArgumentError,
                          "output 'Y' is declared i8, but the graph computes it as f32")

    def test_constant_folding_refuses_sizes_that_overflow_or_explode(self):
        # Found by fuzz_onnx_import (fuzz/regressions/onnx_import/tile_repeats_overflow): Tile of
        # a constant multiplied its dims by the repeats unchecked (undefined behaviour), and the
        # folds took an overflowed element count (-1) as small enough to fold.
        def const_model(nodes):
            return model(nodes, [], [vinfo("Y", None)])
        tile = const_model([const("X", np.ones(3, np.float32)),
                            const("R", np.array([7809814642639398146], np.int64)),
                            helper.make_node("Tile", ["X", "R"], ["Y"], name="t")])
        self.import_error(tile, plaidml.InvalidArgumentError,
                          "repeats[0] = 7809814642639398146 times dim 0 (3) overflows 64 bits")
        ctx = plaidml.Context()
        filled = const_model([const("S", np.array([2**33, 2**33], np.int64)),
                              helper.make_node("ConstantOfShape", ["S"], ["Y"], name="c")])
        with self.assertRaisesRegex(plaidml.InvalidArgumentError,
                                    r"f32\[8589934592, 8589934592\], which is too large"):
            ctx.run(plaidml.onnx.load_bytes(filled.SerializeToString()), {})
        # Two small constants whose broadcast is large are added at run time, not folded: the
        # 16 GiB sum is not computed while importing, and a smaller one runs correctly.
        for n, run in ((65536, False), (512, True)):
            a = np.arange(n, dtype=np.float32).reshape(n, 1)
            b = np.arange(n, dtype=np.float32).reshape(1, n) * 1000
            add = const_model([const("A", a), const("B", b),
                               helper.make_node("Add", ["A", "B"], ["Y"], name="a")])
            program = plaidml.onnx.load_bytes(add.SerializeToString())
            self.assertEqual(program.constants(), (2, 2 * n * 4))
            if run:
                np.testing.assert_array_equal(ctx.run(program, {})["Y"], a + b)

    def test_size_arithmetic_that_overflows(self):
        # Found by fuzz_onnx_import (fuzz/regressions/onnx_import/reshape_size_overflow): the
        # element count a Reshape infers -1 from was multiplied unchecked (undefined behaviour).
        big = 3037000500  # its square is just over 2**63 - 1
        for shape in ([-1, big, big], [big, big, -1], [big, big]):
            m = model([const("S", np.array(shape, np.int64)),
                       helper.make_node("Reshape", ["X", "S"], ["Y"], name="r")],
                      [vinfo("X", [2])], [vinfo("Y", None)])
            self.import_error(m, plaidml.InvalidArgumentError,
                              f"node 'r' (Reshape, opset 17): the size {big} * {big} "
                              "overflows 64 bits")
        # A sum: Split rounds a known size up, dim + (num_outputs - 1).
        most = 2**63 - 1
        split = model([const("S", np.array([most], np.int64)),
                       const("V", np.array(1.0, np.float32)),
                       helper.make_node("Expand", ["V", "S"], ["X"], name="e"),
                       helper.make_node("Split", ["X"], ["A", "B"], name="s", num_outputs=2)],
                      [], [vinfo("A", None), vinfo("B", None)], opset=18)
        self.import_error(split, plaidml.InvalidArgumentError,
                          f"node 's' (Split, opset 18): the size {most} + 1 overflows 64 bits")

    def test_initializer_sizes(self):
        m = add_relu()
        m.graph.initializer[0].raw_data = m.graph.initializer[0].raw_data[:20]
        self.import_error(m, plaidml.InvalidArgumentError,
                          "tensor 'W' has dims [2, 3] of 6 elements (24 bytes as f32), but its "
                          "raw data holds 20 bytes")
        m = add_relu()
        w = m.graph.initializer[0]
        w.ClearField("raw_data")
        w.float_data.extend([1.0, 2.0])
        self.import_error(m, plaidml.InvalidArgumentError,
                          "tensor 'W' has dims of 6 elements but holds 2 values")
        m = add_relu()
        del m.graph.initializer[0].dims[:]
        m.graph.initializer[0].dims.extend([2 ** 40, 2 ** 40])
        self.import_error(m, plaidml.InvalidArgumentError,
                          "tensor 'W' has dims whose product is negative or overflows")
        m = add_relu()
        del m.graph.initializer[0].dims[:]
        m.graph.initializer[0].dims.extend([2 ** 31, 2 ** 30])
        self.import_error(m, plaidml.InvalidArgumentError,
                          "tensor 'W' claims 2305843009213693952 elements, more than any file "
                          "can hold")

    def test_unsupported_things_name_the_node(self):
        unknown = model([helper.make_node("Frobnicate", ["X"], ["Y"], name="f")],
                        [vinfo("X", [2])], [vinfo("Y", None)])
        self.import_error(unknown, plaidml.onnx.Unsupported,
                          "node 'f' (Frobnicate, opset 17): Frobnicate is not an ONNX operator at "
                          "opset 17")
        domain = model([helper.make_node("Foo", ["X"], ["Y"], name="c", domain="com.example")],
                       [vinfo("X", [2])], [vinfo("Y", None)])
        self.import_error(domain, plaidml.onnx.Unsupported,
                          "node 'c' (Foo, domain 'com.example'): domain 'com.example' is not "
                          "supported")
        strings = model([helper.make_node("Identity", ["X"], ["Y"])],
                        [vinfo("X", [2], TensorProto.STRING)], [vinfo("Y", None)])
        self.import_error(strings, plaidml.onnx.Unsupported,
                          "input 'X' has type string, which plaidml does not support")
        seq = helper.make_tensor_sequence_value_info("S", F32, [2])
        sequence = model([helper.make_node("Identity", ["S"], ["Y"])], [seq], [vinfo("Y", None)])
        self.import_error(sequence, plaidml.onnx.Unsupported,
                          "input 'S' is a sequence; plaidml imports tensors only")

    def test_dim_options(self):
        with self.assertRaisesRegex(plaidml.InvalidArgumentError,
                                    "dimension option 'batchsize' matches no symbolic dim of the "
                                    "model's inputs \\(they are: batch\\)"):
            plaidml.onnx.load_bytes(add_relu().SerializeToString(), batchsize=4)
        with self.assertRaisesRegex(plaidml.InvalidArgumentError,
                                    "dimension 'batch' cannot have the negative size -1"):
            plaidml.onnx.load_bytes(add_relu().SerializeToString(), batch=-1)


def reshape_by_input():
    """Y = relu(reshape(X, S) + 1): the target shape S (i64[2]) is a graph input, not a constant."""
    one = numpy_helper.from_array(np.ones((), np.float32), "one")
    return model([helper.make_node("Reshape", ["X", "S"], ["R"], name="reshape"),
                  helper.make_node("Add", ["R", "one"], ["A"]),
                  helper.make_node("Relu", ["A"], ["Y"])],
                 [vinfo("X", [2, 6]), vinfo("S", [2], TensorProto.INT64)], [vinfo("Y", None)],
                 [one])


class BoundInputValues(unittest.TestCase):
    """Inputs whose contents decide shapes: named by needed_inputs, bound with values=."""

    def test_the_import_names_the_input_to_bind_and_binding_it_imports(self):
        data = reshape_by_input().SerializeToString()
        with self.assertRaisesRegex(plaidml.onnx.Unsupported,
                                    "node 'reshape' \\(Reshape, opset 17\\): input 'shape' must be "
                                    "known .* computed from the graph input\\(s\\) 'S': binding "
                                    "them to values at import"):
            plaidml.onnx.load_bytes(data)
        self.assertEqual(plaidml.onnx.needed_inputs(data), ["S"])
        x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(2, 6)
        ctx = plaidml.Context()
        for shape in ([3, 4], [12, 1], [-1, 2]):
            s = np.array(shape, np.int64)
            self.assertEqual(plaidml.onnx.needed_inputs(data, values={"S": s}), [])
            program = plaidml.onnx.load_bytes(data, values={"S": s})
            self.assertEqual(program.inputs, ["X"])
            np.testing.assert_allclose(ctx.run(program, {"X": x})["Y"],
                                       np.maximum(x.reshape(shape) + 1, 0))

    def test_a_model_that_imports_needs_nothing(self):
        self.assertEqual(plaidml.onnx.needed_inputs(add_relu().SerializeToString()), [])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.onnx")
            onnx.save(reshape_by_input(), path)
            self.assertEqual(plaidml.onnx.needed_inputs(path), ["S"])
            program = plaidml.onnx.load(path, values={"S": np.array([4, 3], np.int64)})
            x = np.arange(12, dtype=np.float32).reshape(2, 6)
            np.testing.assert_array_equal(plaidml.Context().run(program, {"X": x})["Y"],
                                          x.reshape(4, 3) + 1)

    def test_the_backend_imports_once_per_value(self):
        import plaidml.onnx.backend as backend
        rep = backend.prepare(reshape_by_input())
        x = np.arange(12, dtype=np.float32).reshape(2, 6) - 6
        for shape in ([3, 4], [6, 2], [3, 4]):
            (y,) = rep.run([x, np.array(shape, np.int64)])
            np.testing.assert_array_equal(y, np.maximum(x.reshape(shape) + 1, 0))
        self.assertEqual(len(rep.specializer.programs), 2)

    def test_bad_values_are_refused(self):
        data = reshape_by_input().SerializeToString()
        cases = [
            ({"T": np.array([3, 4], np.int64)}, "value option 'T' names no input of the model"),
            ({"S": np.array([3, 4], np.int32)},
             "the value bound to input 'S' is i32, but the input is i64"),
            ({"S": np.array([3, 4, 1], np.int64)},
             "the value bound to input 'S' has dims [3], which the input's declared shape does "
             "not allow"),
            ({"S": np.array([5, 5], np.int64)},
             "node 'reshape' (Reshape, opset 17): cannot reshape 12 elements to 25 elements"),
        ]
        for values, text in cases:
            with self.assertRaises(plaidml.PlaidMLError) as raised:
                plaidml.onnx.load_bytes(data, values=values)
            self.assertIn(text, str(raised.exception))
        self.assertNotIsInstance(raised.exception, plaidml.onnx.Unsupported)

    def test_the_c_arguments_are_checked(self):
        lib, opts = plaidml.onnx.library(), ctypes.c_void_p()
        plaidml.onnx._call("plaidml_onnx_options_create", ctypes.byref(opts))
        try:
            dims = (ctypes.c_int64 * 1)(2)
            data = np.zeros(2, np.int64)
            ptr = data.ctypes.data_as(ctypes.c_void_p)
            cases = [((b"S", 5, 1, dims, ptr, 15), "15 bytes given for i64 [2], which takes 16"),
                     ((b"S", 99, 1, dims, ptr, 16), "dtype 99 is not a tensor element type"),
                     ((b"", 5, 1, dims, ptr, 16), "the input name is empty"),
                     ((None, 5, 1, dims, ptr, 16), "argument 'name' is NULL"),
                     ((b"S", 5, 1, dims, None, 16), "argument 'data' is NULL")]
            for args, text in cases:
                with self.assertRaises(plaidml.InvalidArgumentError) as raised:
                    plaidml.onnx._call("plaidml_onnx_options_set_input_value", opts, *args)
                self.assertIn(text, str(raised.exception))
        finally:
            lib.plaidml_onnx_options_destroy(opts)


class ExternalDataChecks(unittest.TestCase):
    """External data: resolved inside the model's folder only, ranges within their files."""

    def save(self, folder, location, offset=None, length=None):
        m = add_relu()
        w = m.graph.initializer[0]
        w.ClearField("raw_data")
        w.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", offset), ("length", length)):
            if value is not None:
                entry = w.external_data.add()
                entry.key, entry.value = key, str(value)
        path = os.path.join(folder, "model.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        return path

    def import_error(self, path, error, text):
        with self.assertRaises(error) as raised:
            plaidml.onnx.load(path)
        self.assertIn(text, str(raised.exception))

    def test_locations_that_leave_the_folder_are_refused(self):
        with tempfile.TemporaryDirectory() as top:
            folder = os.path.join(top, "model")
            os.mkdir(folder)
            outside = os.path.join(top, "secret.bin")
            with open(outside, "wb") as f:
                f.write(b"\0" * 24)
            os.symlink(outside, os.path.join(folder, "link.bin"))
            for location, text in (
                    (outside, "must be a relative path inside the model's folder"),
                    ("../secret.bin", "must be a relative path inside the model's folder"),
                    ("link.bin", "leads out of the model's folder")):
                self.import_error(self.save(folder, location), plaidml.InvalidArgumentError,
                                  text)

    def test_missing_file_and_bad_ranges(self):
        with tempfile.TemporaryDirectory() as folder:
            self.import_error(self.save(folder, "absent.bin"), plaidml.PlaidMLIOError,
                              "tensor 'W': cannot open external data file")
            with open(os.path.join(folder, "w.bin"), "wb") as f:
                f.write(b"\0" * 30)
            self.import_error(self.save(folder, "w.bin", offset=40), plaidml.InvalidArgumentError,
                              "external data offset 40 is past the end of 'w.bin' (30 bytes)")
            self.import_error(self.save(folder, "w.bin", offset=10, length=24),
                              plaidml.InvalidArgumentError,
                              "external data range [10, 34) is past the end of 'w.bin'")
            self.import_error(self.save(folder, "w.bin"), plaidml.InvalidArgumentError,
                              "its dims need 24 bytes, but its external data holds 30")
            program = plaidml.onnx.load(self.save(folder, "w.bin", offset=6, length=24))
            self.assertEqual(program.constants(), (1, 24))
            path = self.save(folder, "w.bin", offset=0, length=24)
            with open(path, "rb") as f:
                data = f.read()
            with self.assertRaisesRegex(plaidml.InvalidArgumentError,
                                        "the model was given as bytes"):
                plaidml.onnx.load_bytes(data)
            os.mkfifo(os.path.join(folder, "fifo.bin"))
            self.import_error(self.save(folder, "fifo.bin"), plaidml.PlaidMLIOError,
                              "is not a regular file")

    def test_model_file_errors(self):
        with tempfile.TemporaryDirectory() as folder:
            self.import_error(os.path.join(folder, "none.onnx"), plaidml.PlaidMLIOError,
                              "cannot open ONNX model")
            self.import_error(folder, plaidml.PlaidMLIOError, "is not a regular file")


if __name__ == "__main__":
    unittest.main()
