"""The ONNX importer's contract (include/plaidml/onnx.h): models built with onnx.helper, imported
with plaidml.onnx, run against numpy; and every bad-input message, by status and text.

Run with the ONNX venv's python (scripts/onnx-venv.sh), PLAIDML_LIBRARY and PLAIDML_ONNX_LIBRARY
set (CTest does: onnx.import).
"""
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
