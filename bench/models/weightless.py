"""Moves real model architectures between machines without their weights.

The exported models (bench/models/export_models.py) need PyTorch and transformers, which only the
GPU machine has, and BERT-base's file is 440 MB, far over what comes back from it. Their weights
are random anyway, so only the graph needs to travel:

    # where the models were exported: each big float initializer becomes a reference into an
    # external data file that is never written (the .onnx that remains is a few hundred KB)
    python bench/models/weightless.py strip bert_base.onnx bert_base.graph.onnx

    # here: writes that data file with random values (normal, sd 0.02, a fixed seed), so the
    # model loads as usual (onnx, onnxruntime, plaidml) with the exported architecture
    python bench/models/weightless.py fill bert_base.graph.onnx [--embed bert_base.onnx]

--embed also writes the model as one file with its weights inside, as export_models.py makes it:
runtimes hold external data differently (mapped in place or read), so memory figures compare
only between files of one form.

Only float initializers of 4 KiB or more are stripped: integer tensors (shapes, position ids,
token type ids) and small floats keep their values, since they can change what a graph does.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import external_data_helper, numpy_helper

THRESHOLD = 4096
FLOAT_TYPES = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.FLOAT16: np.float16,
               onnx.TensorProto.DOUBLE: np.float64}


def data_file(graph_path):
    return os.path.basename(graph_path) + ".weights"


def strip(source, target):
    model = onnx.load(source)  # with any external data of its own
    location = data_file(target)
    offset = 0
    stripped = 0
    for tensor in model.graph.initializer:
        if tensor.data_type not in FLOAT_TYPES:
            continue
        values = numpy_helper.to_array(tensor)
        if values.nbytes < THRESHOLD:
            continue
        length = values.nbytes
        tensor.raw_data = values.tobytes()  # set_external_data wants raw data to replace
        for field in ("float_data", "double_data", "int32_data"):
            tensor.ClearField(field)
        external_data_helper.set_external_data(tensor, location, offset, length)
        tensor.ClearField("raw_data")
        tensor.data_location = onnx.TensorProto.EXTERNAL
        offset += (length + 63) // 64 * 64
        stripped += 1
    onnx.save_model(model, target)
    print(f"{target}: {stripped} initializers ({offset / 2**20:.1f} MiB) left to fill, "
          f"{os.path.getsize(target) / 2**10:.0f} KiB")


def fill(graph_path, seed=0, embed=None):
    model = onnx.load(graph_path, load_external_data=False)
    folder = os.path.dirname(os.path.abspath(graph_path))
    rng = np.random.default_rng(seed)
    files = {}
    for tensor in model.graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        info = {e.key: e.value for e in tensor.external_data}
        path = os.path.join(folder, info["location"])
        handle = files.get(path) or open(path, "wb")
        files[path] = handle
        dtype = FLOAT_TYPES[tensor.data_type]
        count = int(np.prod(tensor.dims)) if tensor.dims else 1
        values = (rng.standard_normal(count) * 0.02).astype(dtype)
        handle.seek(int(info.get("offset", 0)))
        handle.write(values.tobytes())
    for handle in files.values():
        handle.close()
    print(f"{graph_path}: wrote {', '.join(files) or 'nothing'}")
    if embed:
        onnx.save_model(onnx.load(graph_path), embed)  # loads the data just written
        print(f"{embed}: the model with its weights inside")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("strip")
    s.add_argument("source")
    s.add_argument("target")
    f = sub.add_parser("fill")
    f.add_argument("graph")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--embed", help="also write a self-contained copy here")
    args = parser.parse_args()
    if args.command == "strip":
        strip(args.source, args.target)
    else:
        fill(args.graph, args.seed, args.embed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
