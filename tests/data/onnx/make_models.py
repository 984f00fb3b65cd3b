"""Writes the tiny ONNX models that the CLI tests (tests/tools/cli/cli_onnx_test.cc) and the C
example examples/onnx_run.c run. The .onnx files are committed; rerun this only to change them:

    ~/.cache/plaidml-ci/onnx-venv/bin/python tests/data/onnx/make_models.py

Models are written with a fixed producer and no doc strings, so the bytes are reproducible.

add_relu.onnx        Y = Relu(X + W): X "input.1" f32[batch, 3] (symbolic batch), W a 2x3
                     initializer; X broadcasts against W, so batch must be 1 or 2.
odd_names.onnx       input "0" f32[2]; outputs "y/relu:0" = Relu, "y\\sq" = Mul(x, x): names
                     that are not file names (the CLI writes y_relu_0.npy and y_sq.npy).
colliding_names.onnx outputs "a/b" and "a:b", which both map to the file name a_b.npy.
topk_by_input.onnx   Values, Indices = TopK(X, K): X f32[6], K i64[1] a graph input, so the
                     output size depends on K's contents: the CLI binds K from its --input.
unsupported.onnx     one node of a custom domain (com.example Frobnicate), which no plaidml
                     version will import: `plaidml info` lists it, `plaidml run` refuses it.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = TensorProto.FLOAT

# Chosen so that relu(1 + W) (the C example's all-ones input) is 0 0 1 2 3 0.
W = np.array([[-2, -1, 0], [1, 2, -3]], dtype=np.float32)


def save(name, nodes, inputs, outputs, initializers=(), extra_opsets=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", 17)] + list(extra_opsets)
    model = helper.make_model(graph, opset_imports=opsets, producer_name="plaidml make_models.py")
    model.ir_version = 8  # onnx 1.23 writes 13 by default; 8 keeps older readers happy
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def main():
    save("add_relu",
         [helper.make_node("Add", ["input.1", "W"], ["sum"]),
          helper.make_node("Relu", ["sum"], ["Y"])],
         [helper.make_tensor_value_info("input.1", F32, ["batch", 3])],
         [helper.make_tensor_value_info("Y", F32, [2, 3])],
         [numpy_helper.from_array(W, "W")])
    save("odd_names",
         [helper.make_node("Relu", ["0"], ["y/relu:0"]),
          helper.make_node("Mul", ["0", "0"], ["y\\sq"])],
         [helper.make_tensor_value_info("0", F32, [2])],
         [helper.make_tensor_value_info("y/relu:0", F32, [2]),
          helper.make_tensor_value_info("y\\sq", F32, [2])])
    save("colliding_names",
         [helper.make_node("Relu", ["X"], ["a/b"]),
          helper.make_node("Mul", ["X", "X"], ["a:b"])],
         [helper.make_tensor_value_info("X", F32, [2])],
         [helper.make_tensor_value_info("a/b", F32, [2]),
          helper.make_tensor_value_info("a:b", F32, [2])])
    save("topk_by_input",
         [helper.make_node("TopK", ["X", "K"], ["Values", "Indices"])],
         [helper.make_tensor_value_info("X", F32, [6]),
          helper.make_tensor_value_info("K", TensorProto.INT64, [1])],
         [helper.make_tensor_value_info("Values", F32, ["k"]),
          helper.make_tensor_value_info("Indices", TensorProto.INT64, ["k"])])
    save("unsupported",
         [helper.make_node("Frobnicate", ["X"], ["Y"], domain="com.example")],
         [helper.make_tensor_value_info("X", F32, [2])],
         [helper.make_tensor_value_info("Y", F32, [2])],
         extra_opsets=[helper.make_opsetid("com.example", 1)])


if __name__ == "__main__":
    main()
