"""One layer beside onnxruntime: a one-node ONNX file (Conv + bias + Relu, NCHW, or MatMul +
bias, weights as initializers, as an exported model holds them) run by `plaidml run --profile`
(the layer's kernel: the fastest of --runs) and by onnxruntime (CPU provider, the same threads;
the fastest of --runs whole runs, its layout conversions included).

    python bench/models/layer_bench.py --conv 3,2,128,128,28 --matmul 128,768,3072 --threads 1

--conv KH,STRIDE,CI,CO,OUT_HW (square kernel, padding KH // 2, a batch of one); --matmul M,K,N.
Where the whole-model profile shows a slow layer, this shows whether the layer itself is slow
(weights in cache) and what onnxruntime makes of it. Needs onnx, onnxruntime, and the plaidml
CLI (--cli, default build/tools/plaidml).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv_model(kh, stride, ci, co, hw, rng):
    pad = kh // 2
    w = (rng.standard_normal((co, ci, kh, kh)) * 0.05).astype(np.float32)
    w = numpy_helper.from_array(w, "W")
    b = numpy_helper.from_array(rng.standard_normal(co).astype(np.float32), "B")
    nodes = [helper.make_node("Conv", ["X", "W", "B"], ["Y"], kernel_shape=[kh, kh],
                              strides=[stride, stride], pads=[pad] * 4, name="conv"),
             helper.make_node("Relu", ["Y"], ["Z"], name="relu")]
    x = [1, ci, hw * stride, hw * stride]
    return nodes, [w, b], x, 2.0 * hw * hw * co * ci * kh * kh


def matmul_model(m, k, n, rng):
    w = numpy_helper.from_array((rng.standard_normal((k, n)) * 0.05).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "B")
    nodes = [helper.make_node("MatMul", ["X", "W"], ["Y"], name="matmul"),
             helper.make_node("Add", ["Y", "B"], ["Z"], name="bias")]
    return nodes, [w, b], [1, m, k], 2.0 * m * k * n


def save(nodes, weights, x_dims, path):
    graph = helper.make_graph(nodes, "layer",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_dims)],
                              [helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)],
                              weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def ours_us(args, path, x_dims, folder):
    trace = os.path.join(folder, "trace.json")
    cmd = [args.cli, "run", path, "-i", "X=random:f32:" + "x".join(map(str, x_dims)),
           "--threads", str(args.threads), "--repeat", str(args.runs), "--profile", trace]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         env=dict(os.environ, PLAIDML_CACHE_DIR=""))
    if out.returncode != 0:
        sys.exit("plaidml run failed: " + out.stderr.strip())
    times = collections.defaultdict(list)
    for e in json.load(open(trace))["traceEvents"]:
        if e.get("cat") == "kernel":
            times[e["name"]].append(e["dur"])
    # The layer's kernel is the slowest one (the others move the NCHW input and output).
    return max(min(v) for v in times.values())


def ort_us(args, path, x_dims, rng):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feeds = {"X": rng.standard_normal(x_dims).astype(np.float32)}
    for _ in range(5):
        session.run(None, feeds)
    best = float("inf")
    for _ in range(args.runs):
        start = time.perf_counter()
        session.run(None, feeds)
        best = min(best, time.perf_counter() - start)
    return best * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conv", action="append", default=[], help="KH,STRIDE,CI,CO,OUT_HW")
    p.add_argument("--matmul", action="append", default=[], help="M,K,N")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=60)
    p.add_argument("--cli", default="build/tools/plaidml")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    layers = [("conv " + c, conv_model(*map(int, c.split(",")), rng)) for c in args.conv]
    layers += [("matmul " + m, matmul_model(*map(int, m.split(",")), rng)) for m in args.matmul]
    print("| layer | threads | ours us | ours GFLOP/s | ort us | ort GFLOP/s |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, (nodes, weights, x_dims, flop) in layers:
            path = os.path.join(folder, "layer.onnx")
            save(nodes, weights, x_dims, path)
            ours, theirs = ours_us(args, path, x_dims, folder), ort_us(args, path, x_dims, rng)
            print("| %s | %d | %.0f | %.1f | %.0f | %.1f |" % (name, args.threads, ours,
                  flop / ours / 1e3, theirs, flop / theirs / 1e3), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
